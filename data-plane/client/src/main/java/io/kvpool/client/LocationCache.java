package io.kvpool.client;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ReplicaListResult;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Replica lists this client got from the master, each with its read tokens, reused while their read
 * lease surely lasts: a get with a cached entry goes straight to a storage node (one exchange
 * instead of two).
 *
 * <p>Why that is safe: a read token names the object (key and generation) and its expiry; the
 * master neither removes nor evicts an object before its read lease ends; a storage node serves a
 * READ only with a valid, unexpired token for an object it still holds, inside that object's
 * slices; and the client checks every value's CRC32C. An entry is used for at most 80% of the lease
 * TTL counted from before the lookup was sent (the lease starts when the master answers, later), so
 * with the pool's TTL configured the entry is dropped before its lease ends. A stale entry in any
 * other case (a shorter TTL than configured, a failover that gave the nodes new keys, a replica
 * moved or lost) is refused by the node or fails its checksum, and the client asks the master
 * again. Thread-safe.
 */
final class LocationCache {
  private record Entry(ReplicaListResult result, long validUntilNanos) {}

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final int capacity;
  private final long validityNanos;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder stale = new LongAdder();

  private final ClientMetrics metrics;

  /**
   * A cache of up to {@code capacity} keys (0: none) for a pool whose read leases last {@code
   * leaseTtl}.
   */
  LocationCache(int capacity, Duration leaseTtl, ClientMetrics metrics) {
    this.capacity = capacity;
    this.metrics = metrics;
    this.validityNanos = leaseTtl.toNanos() / 5 * 4;
  }

  boolean enabled() {
    return capacity > 0;
  }

  /** The usable entry of {@code key}, or null (counted as a miss). */
  ReplicaListResult get(String key) {
    if (capacity == 0) {
      return null;
    }
    Entry e = entries.get(key);
    if (e == null || System.nanoTime() - e.validUntilNanos >= 0) {
      if (e != null) {
        entries.remove(key, e);
      }
      misses.increment();
      metrics.cacheMisses.inc();
      return null;
    }
    hits.increment();
    metrics.cacheHits.inc();
    return e.result;
  }

  /** Remembers a replica list obtained by a lookup sent at {@code askedAtNanos}. */
  void put(String key, ReplicaListResult r, long askedAtNanos) {
    if (capacity == 0 || r.status() != ErrorCode.OK || r.replicas().isEmpty()) {
      return;
    }
    if (entries.size() >= capacity) {
      prune();
    }
    entries.put(key, new Entry(r, askedAtNanos + validityNanos));
  }

  /**
   * Drops a key's entry after it failed (counted as stale) or because this client changed the key.
   */
  void invalidate(String key, boolean failed) {
    if (entries.remove(key) != null && failed) {
      stale.increment();
      metrics.cacheStale.inc();
    }
  }

  /** Drops every entry: this client removed keys it cannot name (a REMOVE_MATCHING). */
  void clear() {
    entries.clear();
  }

  private void prune() {
    long now = System.nanoTime();
    entries.values().removeIf(e -> now - e.validUntilNanos >= 0);
    int over = entries.size() - capacity * 3 / 4;
    for (Iterator<String> it = entries.keySet().iterator(); over > 0 && it.hasNext(); over--) {
      it.next();
      it.remove();
    }
  }

  /**
   * Lookups answered from the cache, lookups that went to the master, and cached entries that
   * failed.
   */
  record Stats(long hits, long misses, long stale) {}

  Stats stats() {
    return new Stats(hits.sum(), misses.sum(), stale.sum());
  }
}
