package io.kvpool.operator.status;

import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.CacheSignalsStatus;
import io.kvpool.api.v1alpha1.TierUsage;
import io.kvpool.operator.common.ByteQuantity;

/**
 * status.cacheSignals from the leader's, rounded (percent to 0.1, rates to 0.01, bytes to whole) so
 * that a pool at rest does not rewrite its status on every read. Its fullnessPercent is the memory
 * tier's ({@link MasterStatus#memoryTier()}), the figure the autoscaler decides on.
 */
final class CacheSignalsView {
  private CacheSignalsView() {}

  /** Null for a leader that reports no signals. */
  static CacheSignalsStatus of(MasterStatus master) {
    MasterStatus.CacheSignals s = master.cacheSignals();
    if (s == null) {
      return null;
    }
    CacheSignalsStatus out = new CacheSignalsStatus();
    out.setWindowSeconds(s.windowSeconds());
    out.setTiers(
        s.tiers().stream()
            .map(
                t -> {
                  TierUsage tier = new TierUsage();
                  tier.setName(t.name());
                  tier.setCapacity(ByteQuantity.display(t.capacityBytes()));
                  tier.setUsed(ByteQuantity.display(t.usedBytes()));
                  tier.setFullnessPercent(percent(t.fullness()));
                  tier.setObjects(t.objects());
                  return tier;
                })
            .toList());
    out.setFullnessPercent(percent(master.memoryTier().fullness()));
    out.setEvictedBytesPerSecond(Math.round(s.evictedBytesPerSecond()));
    out.setMissesPerSecond(hundredths(s.missesPerSecond()));
    out.setCapacityMissesPerSecond(hundredths(s.capacityMissesPerSecond()));
    out.setMissRatio(Math.round(1000 * s.missRatio()) / 1000.0);
    return out;
  }

  private static double percent(double ratio) {
    return Math.round(1000 * ratio) / 10.0;
  }

  private static double hundredths(double value) {
    return Math.round(100 * value) / 100.0;
  }
}
