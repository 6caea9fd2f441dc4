package io.kvpool.master;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Ranges that must not be reused yet: replicas of puts that never completed, whose writers may
 * still hold a valid grant. Each is freed once that grant has expired, or earlier when its node
 * commits the replica after all ({@link #takeCommitted}): a replica its node completed and verified
 * takes no further write, so no writer is left to land in its range. Guarded by the metadata lock.
 */
final class Quarantine {
  /** A put's replica on one node: what a late COMMIT from that node names. */
  record Placement(String nodeId, String key, long generation) {}

  /** What the COMMIT's receipt must prove: the put's value size and checksum. */
  record Expected(int size, int checksum) {}

  private static final class Held {
    final Replica replica;
    final Placement placement;
    final Expected expected;
    final long releaseAtMillis;
    boolean taken;

    Held(Replica replica, Placement placement, Expected expected, long releaseAtMillis) {
      this.replica = replica;
      this.placement = placement;
      this.expected = expected;
      this.releaseAtMillis = releaseAtMillis;
    }
  }

  /**
   * Nearly in release order (grants have one lifetime); a late entry only waits a little longer.
   */
  private final ArrayDeque<Held> held = new ArrayDeque<>();

  /** The held replicas of puts, by the placement a late COMMIT names. */
  private final Map<Placement, Held> byPlacement = new HashMap<>();

  private int size;

  /** Holds a range a copy (not a put) was granted: only its grant's expiry frees it. */
  void hold(Replica r, long releaseAtMillis) {
    held.add(new Held(r, null, null, releaseAtMillis));
    size++;
  }

  /**
   * Holds the range of a put's replica: freed when its grant expires, or when its node commits the
   * replica.
   */
  void hold(StoredObject o, Replica r, long releaseAtMillis) {
    Placement placement = new Placement(r.nodeId(), o.key, o.generation);
    Held h = new Held(r, placement, new Expected(o.size, o.checksum), releaseAtMillis);
    Held before = byPlacement.put(placement, h);
    if (before != null) {
      // not expected (one replica per node and put): the older entry waits for nothing now
      before.taken = true;
      size--;
    }
    held.add(h);
    size++;
  }

  /**
   * What a COMMIT for a held replica must prove, or null when none is held for {@code placement}.
   */
  Expected expected(Placement placement) {
    Held h = byPlacement.get(placement);
    return h == null ? null : h.expected;
  }

  /**
   * The replica held for {@code placement}, which its node committed: no longer held, to be freed
   * now; or null.
   */
  Replica takeCommitted(Placement placement) {
    Held h = byPlacement.remove(placement);
    if (h == null) {
      return null;
    }
    h.taken = true;
    size--;
    return h.replica;
  }

  /** Replicas whose grants expired, to be freed. */
  List<Replica> release(long nowMillis) {
    List<Replica> out = new ArrayList<>();
    while (!held.isEmpty() && held.peek().releaseAtMillis < nowMillis) {
      Held h = held.poll();
      if (!h.taken) {
        if (h.placement != null) {
          byPlacement.remove(h.placement, h);
        }
        size--;
        out.add(h.replica);
      }
    }
    return out;
  }

  int size() {
    return size;
  }
}
