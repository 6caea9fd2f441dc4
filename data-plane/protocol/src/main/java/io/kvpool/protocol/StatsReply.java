package io.kvpool.protocol;

/** Master -> client: pool totals and the master's state. */
public record StatsReply(
    long capacityBytes, long usedBytes, long objects, int aliveNodes, ServerState state) {
  public void encode(BodyWriter w) {
    w.i64(capacityBytes).i64(usedBytes).i64(objects).i32(aliveNodes).u8(state.code());
  }

  public static StatsReply decode(BodyReader r) throws ProtocolException {
    StatsReply s = new StatsReply(r.i64(), r.i64(), r.i64(), r.i32(), ServerState.fromCode(r.u8()));
    r.finish();
    return s;
  }
}
