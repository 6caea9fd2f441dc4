package io.kvpool.operator.autoscale;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.api.v1alpha1.AutoscalingStatus;
import io.kvpool.operator.autoscale.ScalingVerdict.Action;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolEventReason;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AutoscalingRecordTest {
  private static final Instant T = AutoscalerTest.NOW;
  private static final Optional<SignalSample> READING =
      Optional.of(AutoscalerTest.sample(0, 3, 0.8567, 6.126, 1234.4));

  @Test
  void aScalingIsAnEventAndTheNewestEntryWithItsSignals() {
    AutoscalingOutcome o =
        AutoscalingRecord.next(
            null,
            new ScalingVerdict(
                Action.ScaleUp,
                "TargetExceeded",
                3,
                4,
                "fullness 85.7% above the target 80.0% for 60s",
                READING),
            T);
    AutoscalingStatus s = o.status();
    assertThat(s.getDesiredReplicas()).isEqualTo(4);
    assertThat(s.getOwner()).isEqualTo("Operator");
    assertThat(s.getLastDecision().getAction()).isEqualTo("ScaleUp");
    assertThat(s.getLastDecision().getFullnessPercent()).isEqualTo(85.7);
    assertThat(s.getLastDecision().getCapacityMissesPerSecond()).isEqualTo(6.13);
    assertThat(s.getLastDecision().getEvictedBytesPerSecond()).isEqualTo(1234);
    assertThat(s.getLastDecision().getTime()).isEqualTo(T.toString());
    assertThat(s.getRecentScaling()).containsExactly(s.getLastDecision());
    assertThat(o.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.StorageAutoscaled);
    assertThat(o.events().get(0).message())
        .startsWith("storage nodes 3 -> 4 (TargetExceeded): fullness 85.7%");
  }

  @Test
  void recentScalingKeepsTheLastFiveNewestFirst() {
    AutoscalingStatus s = null;
    for (int i = 0; i < 7; i++) {
      s =
          AutoscalingRecord.next(
                  s,
                  new ScalingVerdict(Action.ScaleUp, "TargetExceeded", 2 + i, 3 + i, "m", READING),
                  T.plusSeconds(i))
              .status();
    }
    assertThat(s.getRecentScaling()).hasSize(5);
    assertThat(s.getRecentScaling().get(0).getToReplicas()).isEqualTo(9);
    assertThat(s.getRecentScaling().get(4).getToReplicas()).isEqualTo(5);
  }

  @Test
  void aHoldRewritesNothingWhileItsReasonStays() {
    AutoscalingStatus first =
        AutoscalingRecord.next(
                null, ScalingVerdict.hold("WithinTargets", 3, "fullness 50.0%", READING), T)
            .status();
    AutoscalingOutcome again =
        AutoscalingRecord.next(
            first,
            ScalingVerdict.hold("WithinTargets", 3, "fullness 51.0%", READING),
            T.plusSeconds(10));
    assertThat(again.status()).isEqualTo(first);
    assertThat(again.events()).isEmpty();
    AutoscalingStatus other =
        AutoscalingRecord.next(
                first,
                ScalingVerdict.hold(
                    "RolloutInProgress", 3, "no scale-down while a rollout runs", READING),
                T.plusSeconds(20))
            .status();
    assertThat(other.getLastDecision().getReason()).isEqualTo("RolloutInProgress");
  }

  @Test
  void anotherWriterIsAdoptedAnnouncedOnceAndRemembered() {
    AutoscalingStatus ours =
        AutoscalingRecord.next(null, ScalingVerdict.hold("WithinTargets", 3, "m", READING), T)
            .status();
    AutoscalingOutcome seen =
        AutoscalingRecord.next(
            ours,
            ScalingVerdict.hold("ExternalOwner", 5, "changed from 3 to 5", READING),
            T.plusSeconds(10));
    assertThat(seen.status().getOwner()).isEqualTo("External");
    assertThat(seen.status().getDesiredReplicas()).isEqualTo(5);
    assertThat(seen.status().getExternalChangeSeen()).isEqualTo(T.plusSeconds(10).toString());
    assertThat(seen.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.AutoscalingYielded);
    AutoscalingOutcome still =
        AutoscalingRecord.next(
            seen.status(),
            ScalingVerdict.hold("ExternalOwner", 5, "holds", READING),
            T.plusSeconds(20));
    assertThat(still.events()).isEmpty();
    assertThat(still.status().getExternalChangeSeen()).isEqualTo(T.plusSeconds(10).toString());
    AutoscalingOutcome back =
        AutoscalingRecord.next(
            still.status(),
            ScalingVerdict.hold("WithinTargets", 5, "m", READING),
            T.plusSeconds(400));
    assertThat(back.status().getOwner()).isEqualTo("Operator");
  }
}
