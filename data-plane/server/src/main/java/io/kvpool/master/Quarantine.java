package io.kvpool.master;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Ranges that must not be reused yet: replicas of puts that never completed, whose writers may still hold a valid
 * grant. Each is freed once that grant has expired. Guarded by the metadata lock.
 */
final class Quarantine {
  private record Held(Replica replica, long releaseAtMillis) {
  }

  /** Nearly in release order (grants have one lifetime); a late entry only waits a little longer. */
  private final ArrayDeque<Held> held = new ArrayDeque<>();

  void hold(Replica r, long releaseAtMillis) {
    held.add(new Held(r, releaseAtMillis));
  }

  /** Replicas whose grants expired, to be freed. */
  List<Replica> release(long nowMillis) {
    List<Replica> out = new ArrayList<>();
    while (!held.isEmpty() && held.peek().releaseAtMillis() < nowMillis) {
      out.add(held.poll().replica());
    }
    return out;
  }

  int size() {
    return held.size();
  }
}
