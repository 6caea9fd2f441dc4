package io.kvpool.protocol;

/** Master -> client: pool totals. */
public record StatsReply(long capacityBytes, long usedBytes, long objects, int aliveNodes) {
  public void encode(BodyWriter w) {
    w.i64(capacityBytes).i64(usedBytes).i64(objects).i32(aliveNodes);
  }

  public static StatsReply decode(BodyReader r) throws ProtocolException {
    StatsReply s = new StatsReply(r.i64(), r.i64(), r.i64(), r.i32());
    r.finish();
    return s;
  }
}
