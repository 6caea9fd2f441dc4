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
 * @param releasePush how far a REMOVE goes to deliver its releases before it is answered
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
    PlacementRamp placementRamp,
    ReleasePushLimits releasePush) {
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
    if (releasePush == null) {
      throw new IllegalArgumentException("release push limits must be given");
    }
    if (maxTombstones < 1) {
      throw new IllegalArgumentException("max tombstones must be at least 1, got " + maxTombstones);
    }
  }

  /**
   * The defaults for pool {@code poolId}: nodes dead after 10 s of silence, 5 s read leases,
   * pending puts dropped after 30 s, eviction of 10 % of the used bytes from 90 % usage, a million
   * tombstones kept 10 minutes, recovery done after 3 quiet seconds, placement ramp on, {@link
   * ReleasePushLimits#DEFAULTS}.
   */
  public static MasterConfig defaults(String poolId) {
    return builder(poolId).build();
  }

  /** The {@link #defaults} for pool {@code poolId} as a builder: change what differs. */
  public static Builder builder(String poolId) {
    return new Builder(poolId);
  }

  /** These settings as a builder, to change some. */
  public Builder toBuilder() {
    return new Builder(poolId)
        .ttls(nodeTtl, leaseTtl)
        .pendingTimeout(pendingTimeout)
        .eviction(highWatermark, evictRatio)
        .tombstoneTtl(tombstoneTtl)
        .maxTombstones(maxTombstones)
        .recoveryQuietPeriod(recoveryQuietPeriod)
        .placementRamp(placementRamp)
        .releasePush(releasePush);
  }

  public MasterConfig withTtls(Duration node, Duration lease) {
    return toBuilder().ttls(node, lease).build();
  }

  public MasterConfig withPendingTimeout(Duration d) {
    return toBuilder().pendingTimeout(d).build();
  }

  public MasterConfig withEviction(double watermark, double ratio) {
    return toBuilder().eviction(watermark, ratio).build();
  }

  public MasterConfig withRecoveryQuietPeriod(Duration d) {
    return toBuilder().recoveryQuietPeriod(d).build();
  }

  public MasterConfig withPlacementRamp(PlacementRamp ramp) {
    return toBuilder().placementRamp(ramp).build();
  }

  /** Settings of a master, checked when built (see the record's components). */
  public static final class Builder {
    private final String poolId;
    private Duration nodeTtl = Duration.ofSeconds(10);
    private Duration leaseTtl = Duration.ofSeconds(5);
    private Duration pendingTimeout = Duration.ofSeconds(30);
    private double highWatermark = 0.90;
    private double evictRatio = 0.10;
    private Duration tombstoneTtl = Duration.ofMinutes(10);
    private int maxTombstones = 1_000_000;
    private Duration recoveryQuietPeriod = Duration.ofSeconds(3);
    private PlacementRamp placementRamp = PlacementRamp.ON;
    private ReleasePushLimits releasePush = ReleasePushLimits.DEFAULTS;

    private Builder(String poolId) {
      this.poolId = poolId;
    }

    /** How long a silent node stays alive, and how long a read lease lasts. */
    public Builder ttls(Duration nodeTtl, Duration leaseTtl) {
      this.nodeTtl = nodeTtl;
      this.leaseTtl = leaseTtl;
      return this;
    }

    public Builder pendingTimeout(Duration pendingTimeout) {
      this.pendingTimeout = pendingTimeout;
      return this;
    }

    /** Once usage crosses {@code highWatermark}, evict {@code evictRatio} of the used bytes. */
    public Builder eviction(double highWatermark, double evictRatio) {
      this.highWatermark = highWatermark;
      this.evictRatio = evictRatio;
      return this;
    }

    public Builder tombstoneTtl(Duration tombstoneTtl) {
      this.tombstoneTtl = tombstoneTtl;
      return this;
    }

    public Builder maxTombstones(int maxTombstones) {
      this.maxTombstones = maxTombstones;
      return this;
    }

    public Builder recoveryQuietPeriod(Duration recoveryQuietPeriod) {
      this.recoveryQuietPeriod = recoveryQuietPeriod;
      return this;
    }

    public Builder placementRamp(PlacementRamp placementRamp) {
      this.placementRamp = placementRamp;
      return this;
    }

    public Builder releasePush(ReleasePushLimits releasePush) {
      this.releasePush = releasePush;
      return this;
    }

    /** The settings; IllegalArgumentException when they cannot run a master. */
    public MasterConfig build() {
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
          placementRamp,
          releasePush);
    }
  }
}
