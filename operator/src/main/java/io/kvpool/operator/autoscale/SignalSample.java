package io.kvpool.operator.autoscale;

import io.kvpool.admin.MasterStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * One reading of the leader's cache signals.
 *
 * <p>Fullness is the <em>memory</em> tier's, not the pool's over all tiers: a disk tier is where
 * memory evictions go (they move there and stay readable), so a pool with one keeps its memory near
 * the high watermark while the disk absorbs the rest, and the memory tier is what puts and gets are
 * served from. Counting the disk in would let a disk many times the memory hide a memory that
 * spills all the time (80 % of memory plus disk is reached only when the disk is almost full); the
 * disk tier filling up shows as capacity misses (a value dropped from disk is an eviction), which
 * has its own target.
 *
 * @param aliveNodes storage nodes the leader counts ALIVE: a decision waits until they are as many
 *     as the replicas
 * @param usedBytes bytes used in the memory tier
 * @param capacityBytes capacity of the memory tier
 * @param fullness used over capacity of the memory tier, 0..1
 * @param capacityMissesPerSecond misses for keys evicted recently, over the leader's window
 * @param evictedBytesPerSecond bytes evicted per second over the leader's window
 */
public record SignalSample(
    Instant at,
    int aliveNodes,
    long usedBytes,
    long capacityBytes,
    double fullness,
    double capacityMissesPerSecond,
    double evictedBytesPerSecond) {

  /** The name of the memory tier in the leader's cacheSignals.tiers. */
  static final String MEMORY_TIER = "memory";

  /**
   * The sample of a serving leader's /status; empty when it reports no signals (an older master, a
   * standby).
   */
  public static Optional<SignalSample> of(MasterStatus status, Instant at) {
    MasterStatus.CacheSignals s = status.cacheSignals();
    if (s == null || !status.serving()) {
      return Optional.empty();
    }
    // a leader always reports its memory tier; without the entry, its memory is the status's total
    MasterStatus.Tier memory =
        s.tiers().stream()
            .filter(t -> MEMORY_TIER.equals(t.name()))
            .findFirst()
            .orElse(new MasterStatus.Tier(MEMORY_TIER, status.capacityBytes(), status.usedBytes()));
    return Optional.of(
        new SignalSample(
            at,
            status.aliveNodes(),
            memory.usedBytes(),
            memory.capacityBytes(),
            memory.fullness(),
            s.capacityMissesPerSecond(),
            s.evictedBytesPerSecond()));
  }

  /** Capacity of one node, as the average of the live ones. */
  long nodeCapacityBytes() {
    return aliveNodes == 0 ? 0 : capacityBytes / aliveNodes;
  }

  /** Fullness with {@code nodes} nodes of the average capacity holding the same bytes. */
  double fullnessWith(int nodes) {
    long capacity = nodeCapacityBytes() * nodes;
    return capacity <= 0 ? Double.POSITIVE_INFINITY : (double) usedBytes / capacity;
  }
}
