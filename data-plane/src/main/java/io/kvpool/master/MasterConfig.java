package io.kvpool.master;

import java.time.Duration;

/** Tunables of the master, from the command line. */
public record MasterConfig(String poolId, Duration nodeTtl, Duration leaseTtl, Duration pendingTimeout,
                           double highWatermark, double evictRatio) {
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
    if (nodeTtl.isNegative() || nodeTtl.isZero() || leaseTtl.isNegative() || leaseTtl.isZero()) {
      throw new IllegalArgumentException("node TTL and lease TTL must be positive");
    }
  }

  public static MasterConfig defaults(String poolId) {
    return new MasterConfig(poolId, Duration.ofSeconds(10), Duration.ofSeconds(5), Duration.ofSeconds(30), 0.90, 0.10);
  }
}
