package io.kvpool.protocol;

/** A single count, e.g. how many objects RemoveAll removed. */
public record CountReply(long count) {
  public void encode(BodyWriter w) {
    w.i64(count);
  }

  public static CountReply decode(BodyReader r) throws ProtocolException {
    CountReply c = new CountReply(r.i64());
    r.finish();
    return c;
  }
}
