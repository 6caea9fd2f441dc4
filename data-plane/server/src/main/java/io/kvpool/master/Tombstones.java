package io.kvpool.master;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Deleted objects, remembered for a while so that a replica coming back from a node that was away
 * (or reported by a node's inventory after a failover) does not resurrect them: key → highest
 * deleted generation. Bounded by age and count; dropping one early is counted, never silent.
 * Guarded by the metadata lock.
 */
final class Tombstones {
  private record Entry(long generation, long atMillis) {}

  private final long ttlMillis;
  private final int maxEntries;
  private final Runnable onDroppedEarly;
  private final LinkedHashMap<String, Entry> byKey = new LinkedHashMap<>();

  Tombstones(long ttlMillis, int maxEntries, Runnable onDroppedEarly) {
    this.ttlMillis = ttlMillis;
    this.maxEntries = maxEntries;
    this.onDroppedEarly = onDroppedEarly;
  }

  void add(String key, long generation, long nowMillis) {
    Entry old = byKey.remove(key); // re-insert: insertion order stays the age order
    byKey.put(
        key, new Entry(old == null ? generation : Math.max(old.generation, generation), nowMillis));
    if (byKey.size() > maxEntries) {
      Iterator<Map.Entry<String, Entry>> it = byKey.entrySet().iterator();
      it.next();
      it.remove();
      onDroppedEarly.run();
    }
  }

  /** Whether generation {@code generation} of {@code key} (or a later one) was deleted. */
  boolean covers(String key, long generation) {
    Entry e = byKey.get(key);
    return e != null && e.generation >= generation;
  }

  void expire(long nowMillis) {
    for (Iterator<Entry> it = byKey.values().iterator(); it.hasNext(); ) {
      if (nowMillis - it.next().atMillis < ttlMillis) {
        return;
      }
      it.remove();
    }
  }

  int size() {
    return byKey.size();
  }
}
