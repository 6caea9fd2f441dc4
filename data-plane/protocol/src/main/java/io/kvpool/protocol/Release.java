package io.kvpool.protocol;

/**
 * Master -> storage node (in heartbeat replies, and from protocol 2.3 in RELEASE): forget this node's replica of object (key, generation).
 * {@code deleted}: the object itself is gone (remove, eviction, revoke, expiry), so keep a tombstone for it.
 */
public record Release(String key, long generation, boolean deleted) {
  static final int MIN_BYTES = 3 + 8 + 1;

  void encode(BodyWriter w) {
    w.string(key).i64(generation).bool(deleted);
  }

  static Release decode(BodyReader r) throws ProtocolException {
    return new Release(r.key(), r.i64(), r.bool());
  }
}
