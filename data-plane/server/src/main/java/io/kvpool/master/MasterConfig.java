package io.kvpool.master;

import java.time.Duration;

/**
 * Tunables of the master (see data-plane/README.md for the flags and environment variables behind
 * them).
 *
 * @param recoveryQuietPeriod a new leader with no record of the previous leader's nodes stops
 *     recovering once no node has registered for this long
 * @param tombstoneTtl how long deleted objects are remembered against replicas coming back
 * @param placementRamp whether placement caps the share of puts a node takes ({@link
 *     ReplicaPlacement})
 */
public record MasterConfig(
    String poolId,
    Duration nodeTtl,
    Duration leaseTtl,
    Duration pendingTimeout,
    double highWatermark,
    double evictRatio,
    Duration tombstoneTtl,
    int maxTombstones,
    Duration recoveryQuietPeriod,
    PlacementRamp placementRamp) {
  public MasterConfig {
    if (poolId == null || poolId.isEmpty()) {
      throw new IllegalArgumentException("pool id must not be empty");
    }
    if (!(highWatermark > 0 && highWatermark <= 1)) {
      throw new IllegalArgumentException("high watermark " + highWatermark + " must be in (0, 1]");
    }
    if (!(evictRatio > 0 && evictRatio <= 1)) {
      throw new IllegalArgumentException("evict ratio " + evictRatio + " must be in (0, 1]");
    }
    for (Duration d :
        new Duration[] {nodeTtl, leaseTtl, pendingTimeout, tombstoneTtl, recoveryQuietPeriod}) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("durations must be positive, got " + d);
      }
    }
    if (placementRamp == null) {
      throw new IllegalArgumentException("placement ramp must be on or off");
    }
    if (maxTombstones < 1) {
      throw new IllegalArgumentException("max tombstones must be at least 1, got " + maxTombstones);
    }
  }

  public static MasterConfig defaults(String poolId) {
    return new MasterConfig(
        poolId,
        Duration.ofSeconds(10),
        Duration.ofSeconds(5),
        Duration.ofSeconds(30),
        0.90,
        0.10,
        Duration.ofMinutes(10),
        1_000_000,
        Duration.ofSeconds(3),
        PlacementRamp.ON);
  }

  public MasterConfig withTtls(Duration node, Duration lease) {
    return new MasterConfig(
        poolId,
        node,
        lease,
        pendingTimeout,
        highWatermark,
        evictRatio,
        tombstoneTtl,
        maxTombstones,
        recoveryQuietPeriod,
        placementRamp);
  }

  public MasterConfig withPendingTimeout(Duration d) {
    return new MasterConfig(
        poolId,
        nodeTtl,
        leaseTtl,
        d,
        highWatermark,
        evictRatio,
        tombstoneTtl,
        maxTombstones,
        recoveryQuietPeriod,
        placementRamp);
  }

  public MasterConfig withEviction(double watermark, double ratio) {
    return new MasterConfig(
        poolId,
        nodeTtl,
        leaseTtl,
        pendingTimeout,
        watermark,
        ratio,
        tombstoneTtl,
        maxTombstones,
        recoveryQuietPeriod,
        placementRamp);
  }

  public MasterConfig withTombstones(Duration ttl, int max) {
    return new MasterConfig(
        poolId,
        nodeTtl,
        leaseTtl,
        pendingTimeout,
        highWatermark,
        evictRatio,
        ttl,
        max,
        recoveryQuietPeriod,
        placementRamp);
  }

  public MasterConfig withRecoveryQuietPeriod(Duration d) {
    return new MasterConfig(
        poolId,
        nodeTtl,
        leaseTtl,
        pendingTimeout,
        highWatermark,
        evictRatio,
        tombstoneTtl,
        maxTombstones,
        d,
        placementRamp);
  }

  public MasterConfig withPlacementRamp(PlacementRamp ramp) {
    return new MasterConfig(
        poolId,
        nodeTtl,
        leaseTtl,
        pendingTimeout,
        highWatermark,
        evictRatio,
        tombstoneTtl,
        maxTombstones,
        recoveryQuietPeriod,
        ramp);
  }
}
