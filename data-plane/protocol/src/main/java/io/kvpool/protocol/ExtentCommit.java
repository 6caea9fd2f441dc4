package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> master (protocol 2.4), answered with one status per item: values the node wrote
 * into extents and verified, under the registration {@code registrationId}; the master registers
 * each as a stored object, or says why not (PROTOCOL.md, "Extents").
 */
public record ExtentCommit(String nodeId, byte[] registrationId, List<Item> items) {
  /** One value: its extent, object, range (at segment, offset), size, checksum and receipt. */
  public record Item(
      long extent,
      String key,
      long generation,
      int segmentId,
      long offset,
      int size,
      int checksum,
      byte[] receipt) {
    static final int MIN_BYTES = 8 + 3 + 8 + 4 + 8 + 4 + 4 + 2;

    public Slice slice() {
      return new Slice(segmentId, offset, size, 0);
    }
  }

  public void encode(BodyWriter w) {
    w.string(nodeId)
        .bytes(registrationId)
        .list(
            items,
            (b, i) ->
                b.i64(i.extent())
                    .string(i.key())
                    .i64(i.generation())
                    .i32(i.segmentId())
                    .i64(i.offset())
                    .i32(i.size())
                    .i32(i.checksum())
                    .bytes(i.receipt()));
  }

  public static ExtentCommit decode(BodyReader r) throws ProtocolException {
    ExtentCommit c =
        new ExtentCommit(
            r.string(256, "node id"),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id"),
            r.list(
                ProtocolLimits.MAX_BATCH,
                Item.MIN_BYTES,
                x ->
                    new Item(
                        x.i64(),
                        x.key(),
                        x.i64(),
                        x.i32(),
                        x.i64(),
                        x.i32(),
                        x.i32(),
                        x.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "receipt"))));
    r.finish();
    return c;
  }
}
