package io.kvpool.master;

import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Approximate LRU eviction by sampling (as Redis does): each victim is the least recently used
 * evictable object of a small random sample, so a round costs O(victims), never a sort of the
 * table. Only COMPLETE, unpinned, unleased objects that are not being copied are taken. Guarded by
 * the metadata lock.
 *
 * <p>With disk tiers, a round that must make room for a put may also move <em>leased</em> objects
 * to disk ({@code leasedToDisk}) when it finds nothing else: a move keeps the object readable (a
 * reader whose memory read fails asks the master again and reads the disk replica), so a read lease
 * does not need its value to stay in memory. Without that, readers holding leases on everything in
 * memory (read leases outlive a second of puts) got puts refused while the tiers had room. Leased
 * objects are never deleted.
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

  /**
   * The slots of one sample and their last accesses, oldest first after {@link #sampleOldestFirst}.
   */
  private final int[] picks = new int[Math.max(SAMPLE, EXACT_BELOW)];

  private final long[] accessed = new long[picks.length];

  Eviction(PoolState pool) {
    this.pool = pool;
    this.tiers = new TierMoves(pool);
  }

  /** Evicts until {@code targetBytes} are freed or {@code maxVictims} objects are gone. */
  EvictionRound evict(long nowMillis, long targetBytes, int maxVictims) {
    return evict(nowMillis, targetBytes, maxVictims, false, () -> false);
  }

  /**
   * Evicts until {@code roomMade} says so (asked after each victim), {@code targetBytes} are freed
   * or {@code maxVictims} objects are gone; {@code leasedToDisk}: leased objects may be moved to
   * disk when no unleased one is found. A put needs room on as many nodes as it has replicas, which
   * bytes freed anywhere do not make: it asks for that room.
   */
  EvictionRound evict(
      long nowMillis,
      long targetBytes,
      int maxVictims,
      boolean leasedToDisk,
      BooleanSupplier roomMade) {
    EvictionRound.Tally tally = new EvictionRound.Tally();
    int victims = 0;
    int fruitless = 0;
    while (tally.freedBytes < targetBytes
        && victims < maxVictims
        && fruitless < FRUITLESS_SAMPLES
        && (victims == 0 || !roomMade.getAsBoolean())) {
      StoredObject victim = null;
      StoredObject leased = null;
      int n = sampleOldestFirst();
      for (int i = 0; i < n && victim == null; i++) {
        StoredObject o = pool.objects.slot(picks[i]);
        if (!tally.looked(o, nowMillis)) {
          continue;
        }
        if (o.evictable(nowMillis)) {
          victim = o; // the least recently used evictable object of the sample
        } else if (leasedToDisk
            && leased == null
            && o.movableToDiskWhileLeased()
            && tiers.canMoveToDisk(o)) {
          leased = o;
        }
      }
      if (victim == null && leased == null) {
        fruitless++;
        continue;
      }
      fruitless = 0;
      long bytes = (victim != null ? victim : leased).allocatedBytes();
      tally.freedBytes += bytes;
      if (victim == null) {
        tiers.moveToDisk(leased);
        tally.leasedSpilled++;
      } else if (tiers.moveToDisk(victim)) {
        tally.spilled++; // still readable, from disk: not an eviction to the cache signals
      } else {
        pool.counters.cacheSignals.evicted(victim.key, bytes, nowMillis);
        pool.delete(victim, nowMillis, false, 0);
        tally.deleted++;
      }
      victims++;
    }
    pool.counters.evictions.inc(tally.deleted);
    pool.counters.spills.inc(tally.spilled + tally.leasedSpilled);
    EvictionRound round = tally.round(fruitless >= FRUITLESS_SAMPLES);
    if (victims > 0) {
      // under steady pressure this runs every few puts: the evictions counter in /metrics is the
      // record
      LOG.debug("event=eviction_round {}", round);
    }
    return round;
  }

  /**
   * Fills {@link #picks} with a sample of slots, the whole table when it is small, ordered by last
   * access, oldest first, and returns how many. Only the table's copy of each last access is read,
   * so a round touches the objects it then looks at in that order, usually one, not the whole
   * sample.
   */
  private int sampleOldestFirst() {
    int size = pool.objects.size();
    boolean exact = size <= EXACT_BELOW; // then LRU is exact
    int n = exact ? size : SAMPLE;
    for (int i = 0; i < n; i++) {
      int slot = exact ? i : pool.objects.sampleSlot(pool.random);
      long at = pool.objects.lastAccess(slot);
      int j = i;
      for (; j > 0 && accessed[j - 1] > at; j--) {
        accessed[j] = accessed[j - 1];
        picks[j] = picks[j - 1];
      }
      accessed[j] = at;
      picks[j] = slot;
    }
    return n;
  }
}
