package io.kvpool.protocol;

/**
 * Master -> storage node (in heartbeat replies, and in RELEASE): forget this node's replica of
 * object (key, generation) in memory. {@code deleted}: the object itself is gone (remove, eviction,
 * revoke, expiry), so keep a tombstone for it. {@code toDisk} (protocol 2.3, only to nodes with a
 * disk tier): the replica moves to the node's disk tier — the master freed its memory range, and
 * the node keeps the value as a disk record (written before the range is reused).
 */
public record Release(String key, long generation, boolean deleted, boolean toDisk) {
  static final int MIN_BYTES = 3 + 8 + 1;

  /**
   * The protocol minor from which a release carries a kind (0 moved, 1 deleted, 2 to disk) instead
   * of a bool.
   */
  public static final int KIND_MINOR = 3;

  public Release {
    if (deleted && toDisk) {
      throw new IllegalArgumentException("a release is either a deletion or a move to disk");
    }
  }

  public Release(String key, long generation, boolean deleted) {
    this(key, generation, deleted, false);
  }

  /** The replica moves to the node's disk tier. */
  public static Release toDisk(String key, long generation) {
    return new Release(key, generation, false, true);
  }

  void encode(BodyWriter w, int minor) {
    w.string(key).i64(generation);
    if (minor >= KIND_MINOR) {
      w.u8(toDisk ? 2 : deleted ? 1 : 0);
    } else {
      w.bool(deleted);
    }
  }

  static Release decode(BodyReader r, int minor) throws ProtocolException {
    String key = r.key();
    long generation = r.i64();
    if (minor < KIND_MINOR) {
      return new Release(key, generation, r.bool());
    }
    int kind = r.u8();
    if (kind > 2) {
      throw new ProtocolException(
          "release kind " + kind + " is not 0 (moved), 1 (deleted) or 2 (to disk)");
    }
    return new Release(key, generation, kind == 1, kind == 2);
  }
}
