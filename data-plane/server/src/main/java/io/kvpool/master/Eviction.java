package io.kvpool.master;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Approximate LRU eviction by sampling (as Redis does): each victim is the least recently used
 * evictable object of a small random sample, so a round costs O(victims), never a sort of the
 * table. Only COMPLETE, unpinned, unleased objects that are not being copied are taken. Guarded by
 * the metadata lock.
 */
final class Eviction {
  private static final Logger LOG = LoggerFactory.getLogger(Eviction.class);
  static final int SAMPLE = 16;

  /** Tables this small are scanned whole for each victim. */
  static final int EXACT_BELOW = 256;

  /**
   * Samples in a row that found nothing evictable before a round gives up (everything leased,
   * pinned, pending).
   */
  private static final int FRUITLESS_SAMPLES = 8;

  private final PoolState pool;
  private final TierMoves tiers;

  Eviction(PoolState pool) {
    this.pool = pool;
    this.tiers = new TierMoves(pool);
  }

  /**
   * Evicts until {@code targetBytes} are freed or {@code maxVictims} objects are gone; returns the
   * bytes freed.
   */
  long evict(long nowMillis, long targetBytes, int maxVictims) {
    long freed = 0;
    int victims = 0;
    int fruitless = 0;
    int spilled = 0;
    while (freed < targetBytes && victims < maxVictims && fruitless < FRUITLESS_SAMPLES) {
      StoredObject victim = null;
      int n = pool.objects.size();
      boolean exact =
          n <= EXACT_BELOW; // a small table is cheaper to scan than to sample, and then LRU is
      // exact
      for (int i = 0; i < (exact ? n : SAMPLE); i++) {
        StoredObject o = exact ? pool.objects.slot(i) : pool.objects.sample(pool.random);
        if (o != null
            && o.evictable(nowMillis)
            && TierMoves.inMemory(o)
            && (victim == null || o.lastAccessMillis < victim.lastAccessMillis)) {
          victim = o;
        }
      }
      if (victim == null) {
        fruitless++;
        continue;
      }
      fruitless = 0;
      long bytes = victim.allocatedBytes();
      freed += bytes;
      if (tiers.moveToDisk(victim)) {
        spilled++; // still readable, from disk: not an eviction to the cache signals
      } else {
        pool.counters.cacheSignals.evicted(victim.key, bytes, nowMillis);
        pool.delete(victim, nowMillis, false, 0);
      }
      victims++;
    }
    pool.counters.evictions.inc(victims - spilled);
    pool.counters.spills.inc(spilled);
    if (victims > 0) {
      // under steady pressure this runs every few puts: the evictions counter in /metrics is the
      // record
      LOG.debug("event=eviction_round evicted={} freed_bytes={}", victims, freed);
    }
    return freed;
  }
}
