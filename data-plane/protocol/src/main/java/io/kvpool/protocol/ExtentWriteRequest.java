package io.kvpool.protocol;

/**
 * Client -> storage node (protocol 2.4): the next {@code valueSize} payload bytes are the whole
 * value of object (key, generation), to go {@code at} bytes into the extent; the node commits it at
 * the master before it replies (PROTOCOL.md, "Extents").
 */
public record ExtentWriteRequest(
    Extent extent, String key, long generation, int at, int valueSize, int checksum) {
  public void encode(BodyWriter w) {
    extent.encode(w);
    w.string(key).i64(generation).i32(at).i32(valueSize).i32(checksum);
  }

  /** The numbers are taken as they come: the node answers bad ones with an error reply. */
  public static ExtentWriteRequest decode(BodyReader r) throws ProtocolException {
    ExtentWriteRequest req =
        new ExtentWriteRequest(Extent.decode(r), r.key(), r.i64(), r.i32(), r.i32(), r.i32());
    r.finish();
    return req;
  }

  /** The range the value takes in its node's segment. */
  public Slice slice() {
    return new Slice(extent.segmentId(), extent.offset() + at, valueSize, 0);
  }
}
