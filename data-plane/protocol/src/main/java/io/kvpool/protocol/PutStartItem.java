package io.kvpool.protocol;

import java.util.List;

/**
 * One object a client wants to store: its key, size, CRC32C and replica count; {@code putId}, a
 * random number the client picks per put, makes a retried PUT_START (after a lost reply) get the
 * same pending put back; {@code avoidNodes} names storage nodes the client just failed to reach,
 * which the master does not place on. Decoded leniently (a key up to 65535 bytes, any size and
 * replica count) so that an item over a limit gets its own LIMIT_EXCEEDED answer; {@link
 * #limitProblem()} says which limit.
 */
public record PutStartItem(
    String key, int size, int checksum, int replicas, long putId, List<String> avoidNodes) {
  static final int MIN_BYTES = 2 + 4 + 4 + 1 + 8 + 4;
  public static final int MAX_AVOIDED = 16;

  public PutStartItem {
    avoidNodes = List.copyOf(avoidNodes);
  }

  /** Null when the item is within the protocol's limits, else why not. */
  public String limitProblem() {
    String keyProblem = Keys.problem(key);
    if (keyProblem != null) {
      return keyProblem;
    }
    if (size < 1 || size > ProtocolLimits.MAX_VALUE_BYTES) {
      return "value size " + size + " outside 1.." + ProtocolLimits.MAX_VALUE_BYTES + " bytes";
    }
    if (replicas < 1) {
      return "replica count must be at least 1";
    }
    return null;
  }

  void encode(BodyWriter w) {
    w.string(key)
        .i32(size)
        .i32(checksum)
        .u8(replicas)
        .i64(putId)
        .list(avoidNodes, BodyWriter::string);
  }

  static PutStartItem decode(BodyReader r) throws ProtocolException {
    return new PutStartItem(
        r.anyKey(),
        r.i32(),
        r.i32(),
        r.u8(),
        r.i64(),
        r.list(MAX_AVOIDED, 2, x -> x.string(256, "node id")));
  }
}
