package io.kvpool.operator.autoscale;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.AutoscalingSpec;
import io.kvpool.api.v1alpha1.AutoscalingTargets;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.ScaleUpBehavior;
import io.kvpool.operator.TestPools;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * One round: reading recorded, decision written, and what status.autoscaling says when the write
 * lost a race.
 */
class PoolAutoscalerTest {
  private static KvCachePool pool(boolean enabled) {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    AutoscalingSpec spec = new AutoscalingSpec();
    spec.setEnabled(enabled);
    spec.setMinReplicas(2);
    spec.setMaxReplicas(5);
    AutoscalingTargets targets = new AutoscalingTargets();
    targets.setFullnessPercent(80);
    spec.setTargets(targets);
    ScaleUpBehavior up = new ScaleUpBehavior();
    up.setStabilizationWindowSeconds(0);
    spec.setScaleUp(up);
    pool.getSpec().getStorage().setAutoscaling(spec);
    return pool;
  }

  private static Optional<MasterStatus> leader(double fullness) {
    return leader(fullness, List.of());
  }

  /** A leader whose memory tier is {@code fullness} full, with {@code otherTiers} after it. */
  private static Optional<MasterStatus> leader(
      double fullness, List<MasterStatus.Tier> otherTiers) {
    long capacity = 3L << 30;
    List<MasterStatus.Tier> tiers = new ArrayList<>();
    tiers.add(new MasterStatus.Tier("memory", capacity, (long) (capacity * fullness), 0));
    tiers.addAll(otherTiers);
    List<MasterStatus.NodeStatus> nodes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      nodes.add(
          new MasterStatus.NodeStatus(
              "p-storage-" + i,
              "10.0.0." + i + ":50052",
              "ALIVE",
              1L << 30,
              0,
              0,
              "0.1.0",
              "2.0",
              100));
    }
    return Optional.of(
        new MasterStatus(
            AdminJson.API_VERSION,
            "p",
            "LEADER",
            "SERVING",
            1,
            null,
            "0.1.0",
            "2.0",
            new MasterStatus.Recovery(false, 0, List.of()),
            nodes,
            capacity,
            (long) (capacity * fullness),
            0,
            null,
            new MasterStatus.CacheSignals(60, tiers, 0, 0, 0, 0, 0, 0, 0),
            null));
  }

  @Test
  void offWritesNothingAndHasNoStatus() {
    List<Integer> written = new ArrayList<>();
    assertThat(
            new PoolAutoscaler()
                .reconcile(
                    pool(false), leader(0.95), false, false, AutoscalerTest.NOW, written::add))
        .isEmpty();
    assertThat(written).isEmpty();
  }

  @Test
  void aTargetExceededIsWritten() {
    List<Integer> written = new ArrayList<>();
    AutoscalingOutcome o =
        new PoolAutoscaler()
            .reconcile(pool(true), leader(0.95), false, false, AutoscalerTest.NOW, written::add)
            .orElseThrow();
    assertThat(written).containsExactly(4);
    assertThat(o.status().getDesiredReplicas()).isEqualTo(4);
    assertThat(o.status().getLastDecision().getReason()).isEqualTo("TargetExceeded");
  }

  @Test
  void aWriteThatLostARaceIsAHoldNotAScaling() {
    AutoscalingOutcome o =
        new PoolAutoscaler()
            .reconcile(
                pool(true), leader(0.95), false, false, AutoscalerTest.NOW, replicas -> false)
            .orElseThrow();
    assertThat(o.status().getDesiredReplicas()).as("what the spec still says").isEqualTo(3);
    assertThat(o.status().getLastDecision().getReason()).isEqualTo("PoolChanged");
    assertThat(o.events()).isEmpty();
  }

  @Test
  void aDiskTieredPoolScalesOnItsMemoryTier() {
    // 95 % of 3 GiB memory, 10 % of 30 GiB disk: 17 % over both tiers, far under the target
    MasterStatus.Tier disk = new MasterStatus.Tier("disk", 30L << 30, 3L << 30, 0);
    List<Integer> written = new ArrayList<>();
    AutoscalingOutcome o =
        new PoolAutoscaler()
            .reconcile(
                pool(true),
                leader(0.95, List.of(disk)),
                false,
                false,
                AutoscalerTest.NOW,
                written::add)
            .orElseThrow();
    assertThat(written).containsExactly(4);
    assertThat(o.status().getLastDecision().getReason()).isEqualTo("TargetExceeded");
    assertThat(o.status().getLastDecision().getMessage())
        .contains("memory fullness 95.0% above the target 80.0%");
    assertThat(o.status().getLastDecision().getFullnessPercent()).isEqualTo(95.0);
  }

  @Test
  void aFullDiskTierDoesNotScaleAPoolWhoseMemoryIsWithinTarget() {
    MasterStatus.Tier disk = new MasterStatus.Tier("disk", 30L << 30, 29L << 30, 0);
    List<Integer> written = new ArrayList<>();
    AutoscalingOutcome o =
        new PoolAutoscaler()
            .reconcile(
                pool(true),
                leader(0.5, List.of(disk)),
                false,
                false,
                AutoscalerTest.NOW,
                written::add)
            .orElseThrow();
    assertThat(written).isEmpty();
    assertThat(o.status().getLastDecision().getReason()).isEqualTo("WithinTargets");
    assertThat(o.status().getLastDecision().getMessage()).startsWith("memory fullness 50.0%");
  }
}
