package io.kvpool.protocol;

/**
 * Master -> client, protocol 2.4: what a REMOVE_MATCHING did. {@code removed}: objects removed;
 * {@code kept}: matching objects left in place because they are read (lease), copied or written;
 * {@code finished}: false when the master stopped matching at its time limit before it had looked
 * at every key (asking again goes on with what is left).
 */
public record RemoveMatchingReply(long removed, long kept, boolean finished) {
  public void encode(BodyWriter w) {
    w.i64(removed).i64(kept).bool(finished);
  }

  public static RemoveMatchingReply decode(BodyReader r) throws ProtocolException {
    RemoveMatchingReply m = new RemoveMatchingReply(r.i64(), r.i64(), r.bool());
    r.finish();
    return m;
  }
}
