package io.kvpool.operator.autoscale;

import io.kvpool.admin.MasterStatus;
import java.time.Instant;
import java.util.Optional;

/**
 * One reading of the leader's cache signals.
 *
 * @param aliveNodes storage nodes the leader counts ALIVE: a decision waits until they are as many
 *     as the replicas
 * @param fullness used over capacity of all tiers, 0..1
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

  /**
   * The sample of a serving leader's /status; empty when it reports no signals (an older master, a
   * standby).
   */
  public static Optional<SignalSample> of(MasterStatus status, Instant at) {
    MasterStatus.CacheSignals s = status.cacheSignals();
    if (s == null || !status.serving()) {
      return Optional.empty();
    }
    long capacity = s.tiers().stream().mapToLong(MasterStatus.Tier::capacityBytes).sum();
    long used = s.tiers().stream().mapToLong(MasterStatus.Tier::usedBytes).sum();
    return Optional.of(
        new SignalSample(
            at,
            status.aliveNodes(),
            used,
            capacity,
            s.fullness(),
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
