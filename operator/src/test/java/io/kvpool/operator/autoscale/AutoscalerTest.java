package io.kvpool.operator.autoscale;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.operator.autoscale.ScalingVerdict.Action;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Every rule of {@link Autoscaler}, its windows and limits, the rollout interplay and another
 * owner.
 */
class AutoscalerTest {
  static final long GIB = 1L << 30;
  static final Instant NOW = Instant.parse("2026-11-26T06:00:00Z");

  /** min 2, max 6, fullness 80 %, 5 capacity misses/s, up 60 s × 1, down 300 s × 1. */
  static final AutoscalingPolicy POLICY =
      new AutoscalingPolicy(
          2,
          6,
          OptionalDouble.of(0.8),
          OptionalDouble.of(5),
          Duration.ofSeconds(60),
          1,
          Duration.ofSeconds(300),
          1);

  /** {@link #POLICY} with the values a case changes, named: {@code policy().missesOnly(5)}. */
  static PolicyChange policy() {
    return new PolicyChange();
  }

  static final class PolicyChange {
    private int min = POLICY.minReplicas();
    private int max = POLICY.maxReplicas();
    private OptionalDouble fullness = POLICY.fullnessTarget();
    private OptionalDouble misses = POLICY.capacityMissTarget();
    private Duration upWindow = POLICY.scaleUpWindow();
    private int upStep = POLICY.scaleUpStep();
    private Duration downWindow = POLICY.scaleDownWindow();
    private int downStep = POLICY.scaleDownStep();

    PolicyChange bounds(int min, int max) {
      this.min = min;
      this.max = max;
      return this;
    }

    /** A fullness target and no capacity-miss target. */
    PolicyChange fullnessOnly(double target) {
      fullness = OptionalDouble.of(target);
      misses = OptionalDouble.empty();
      return this;
    }

    /** A capacity-miss target and no fullness target. */
    PolicyChange missesOnly(double target) {
      fullness = OptionalDouble.empty();
      misses = OptionalDouble.of(target);
      return this;
    }

    PolicyChange up(long windowSeconds, int step) {
      upWindow = Duration.ofSeconds(windowSeconds);
      upStep = step;
      return this;
    }

    PolicyChange down(long windowSeconds, int step) {
      downWindow = Duration.ofSeconds(windowSeconds);
      downStep = step;
      return this;
    }

    AutoscalingPolicy build() {
      return new AutoscalingPolicy(
          min, max, fullness, misses, upWindow, upStep, downWindow, downStep);
    }
  }

  /**
   * A reading at {@code secondsAgo} of {@code nodes} 10 GiB nodes holding {@code fullness} of them.
   */
  static SignalSample sample(
      long secondsAgo, int nodes, double fullness, double capacityMisses, double evicted) {
    long capacity = nodes * 10 * GIB;
    return new SignalSample(
        NOW.minusSeconds(secondsAgo),
        nodes,
        (long) (capacity * fullness),
        capacity,
        fullness,
        capacityMisses,
        evicted,
        List.of());
  }

  /** Readings every 10 s over the last {@code seconds}, all alike. */
  static List<SignalSample> steady(
      long seconds, int nodes, double fullness, double capacityMisses, double evicted) {
    List<SignalSample> out = new ArrayList<>();
    for (long ago = seconds; ago >= 0; ago -= 10) {
      out.add(sample(ago, nodes, fullness, capacityMisses, evicted));
    }
    return out;
  }

  static Inputs inputs(int replicas, List<SignalSample> history) {
    return new Inputs(POLICY, replicas, replicas, null, history, false, false, 2, 0.9);
  }

  /** A builder over {@link AutoscalingInputs}. */
  record Inputs(
      AutoscalingPolicy policy,
      int replicas,
      Integer lastWritten,
      Instant externalSeen,
      List<SignalSample> history,
      boolean rollout,
      boolean scalingDown,
      int objectReplicas,
      double hwm) {
    Inputs policy(AutoscalingPolicy p) {
      return new Inputs(
          p,
          replicas,
          lastWritten,
          externalSeen,
          history,
          rollout,
          scalingDown,
          objectReplicas,
          hwm);
    }

    Inputs lastWritten(Integer w) {
      return new Inputs(
          policy, replicas, w, externalSeen, history, rollout, scalingDown, objectReplicas, hwm);
    }

    Inputs externalSeen(Instant at) {
      return new Inputs(
          policy, replicas, lastWritten, at, history, rollout, scalingDown, objectReplicas, hwm);
    }

    Inputs rollout(boolean active, boolean down) {
      return new Inputs(
          policy, replicas, lastWritten, externalSeen, history, active, down, objectReplicas, hwm);
    }

    Inputs objectReplicas(int r) {
      return new Inputs(
          policy, replicas, lastWritten, externalSeen, history, rollout, scalingDown, r, hwm);
    }

    ScalingVerdict decide() {
      return Autoscaler.decide(
          new AutoscalingInputs(
              policy,
              replicas,
              lastWritten,
              externalSeen,
              history,
              rollout,
              scalingDown,
              objectReplicas,
              hwm,
              NOW));
    }
  }

  static void assertVerdict(ScalingVerdict v, Action action, String reason, int to) {
    assertThat(v.action()).as("%s", v).isEqualTo(action);
    assertThat(v.reason()).as("%s", v).isEqualTo(reason);
    assertThat(v.to()).as("%s", v).isEqualTo(to);
  }

  @Nested
  class ScaleUp {
    @Test
    void fullnessAboveTargetForTheWholeWindowAddsANode() {
      ScalingVerdict v = inputs(3, steady(60, 3, 0.85, 0, 0)).decide();
      assertVerdict(v, Action.ScaleUp, "TargetExceeded", 4);
      assertThat(v.message())
          .contains("memory fullness 85.0% above the target 80.0%")
          .contains("60s");
      assertThat(v.latest()).isPresent();
    }

    @Test
    void capacityMissesAboveTargetAddANode() {
      ScalingVerdict v = inputs(3, steady(60, 3, 0.5, 6, 0)).decide();
      assertVerdict(v, Action.ScaleUp, "TargetExceeded", 4);
      assertThat(v.message()).contains("capacity misses 6.00/s above the target 5.00/s");
    }

    @Test
    void bothTargetsAreNamedWhenBothAreExceeded() {
      assertThat(inputs(3, steady(60, 3, 0.9, 9, 0)).decide().message())
          .contains("fullness 90.0%")
          .contains(" and capacity misses 9.00/s");
    }

    @Test
    void aWindowNotYetCoveredHolds() {
      assertVerdict(inputs(3, steady(50, 3, 0.95, 0, 0)).decide(), Action.Hold, "WithinTargets", 3);
    }

    @Test
    void oneReadingUnderTheTargetInTheWindowRestartsIt() {
      List<SignalSample> h = new ArrayList<>(steady(120, 3, 0.85, 0, 0));
      h.set(h.size() - 3, sample(20, 3, 0.7, 0, 0));
      assertVerdict(inputs(3, h).decide(), Action.Hold, "WithinTargets", 3);
    }

    @Test
    void readingsAtAnotherNodeCountDoNotCount() {
      List<SignalSample> h = new ArrayList<>(steady(120, 2, 0.85, 0, 0).subList(0, 8));
      h.addAll(steady(30, 3, 0.85, 0, 0));
      assertVerdict(inputs(3, h).decide(), Action.Hold, "WithinTargets", 3);
    }

    @Test
    void aZeroWindowActsOnTheLatestReading() {
      AutoscalingPolicy now = policy().fullnessOnly(0.8).up(0, 1).build();
      assertVerdict(
          inputs(3, List.of(sample(0, 3, 0.81, 0, 0))).policy(now).decide(),
          Action.ScaleUp,
          "TargetExceeded",
          4);
    }

    @Test
    void theStepFollowsFullnessUpToTheLimit() {
      AutoscalingPolicy big = policy().bounds(2, 20).fullnessOnly(0.5).up(60, 3).build();
      // 4 nodes at 70 % against 50 %: ceil(4 × 0.7 / 0.5) = 6
      assertVerdict(
          inputs(4, steady(60, 4, 0.7, 0, 0)).policy(big).decide(),
          Action.ScaleUp,
          "TargetExceeded",
          6);
      // 4 nodes at 95 %: ceil(7.6) = 8, but at most 3 more
      assertVerdict(
          inputs(4, steady(60, 4, 0.95, 0, 0)).policy(big).decide(),
          Action.ScaleUp,
          "TargetExceeded",
          7);
    }

    @Test
    void neverAboveTheMaximum() {
      AutoscalingPolicy wide = policy().bounds(2, 5).fullnessOnly(0.5).up(60, 4).build();
      assertVerdict(
          inputs(4, steady(60, 4, 0.95, 0, 0)).policy(wide).decide(),
          Action.ScaleUp,
          "TargetExceeded",
          5);
      ScalingVerdict atMax = inputs(6, steady(60, 6, 0.95, 0, 0)).decide();
      assertVerdict(atMax, Action.Hold, "AtMaximum", 6);
      assertThat(atMax.message()).contains("maxReplicas 6");
    }

    @Test
    void aTargetLeftOutIsNotUsed() {
      AutoscalingPolicy missesOnly = policy().missesOnly(5).build();
      assertVerdict(
          inputs(3, steady(60, 3, 0.99, 0, 0)).policy(missesOnly).decide(),
          Action.Hold,
          "WithinTargets",
          3);
    }

    @Test
    void waitsForNewNodesToRegisterBeforeDecidingAgain() {
      // spec says 4, the leader still counts 3: the readings are of the old pool
      ScalingVerdict v = inputs(4, steady(120, 3, 0.95, 0, 0)).decide();
      assertVerdict(v, Action.Hold, "WaitingForNodes", 4);
      assertThat(v.message()).contains("3 live storage nodes of 4");
    }
  }

  @Nested
  class ScaleDown {
    @Test
    void dataThatFitsFewerNodesWithNothingEvictedRemovesOne() {
      // 4 nodes at 40 %: 3 nodes would be 53 % <= 80 %
      ScalingVerdict v = inputs(4, steady(300, 4, 0.4, 0, 0)).decide();
      assertVerdict(v, Action.ScaleDown, "TargetsMetWithFewerNodes", 3);
      assertThat(v.message()).contains("53.3% of 3 nodes");
    }

    @Test
    void theStepLimitsHowManyGoAtOnceAndEachMustFit() {
      AutoscalingPolicy fast = policy().bounds(1, 10).fullnessOnly(0.8).down(300, 3).build();
      // 8 nodes at 30 %: 4 nodes would be 60 %, 3 would be 80 %, 2 would be 120 %; at most 3 fewer
      // → 5
      assertVerdict(
          inputs(8, steady(300, 8, 0.3, 0, 0)).policy(fast).objectReplicas(1).decide(),
          Action.ScaleDown,
          "TargetsMetWithFewerNodes",
          5);
      // 6 nodes at 30 %: 3 fewer = 3 nodes at 60 % fits
      assertVerdict(
          inputs(6, steady(300, 6, 0.3, 0, 0)).policy(fast).objectReplicas(1).decide(),
          Action.ScaleDown,
          "TargetsMetWithFewerNodes",
          3);
      // 4 nodes at 50 %: 3 nodes 66.7 % fits, 2 nodes 100 % does not
      assertVerdict(
          inputs(4, steady(300, 4, 0.5, 0, 0)).policy(fast).objectReplicas(1).decide(),
          Action.ScaleDown,
          "TargetsMetWithFewerNodes",
          3);
    }

    @Test
    void dataThatWouldNotFitHolds() {
      // 3 nodes at 60 %: 2 nodes would be 90 % > 80 %
      assertVerdict(inputs(3, steady(300, 3, 0.6, 0, 0)).decide(), Action.Hold, "WithinTargets", 3);
    }

    @Test
    void aPoolThatEvictsIsNotShrunk() {
      assertVerdict(inputs(4, steady(300, 4, 0.4, 0, 1)).decide(), Action.Hold, "WithinTargets", 4);
    }

    @Test
    void capacityMissesAboveHalfTheTargetHold() {
      assertVerdict(
          inputs(4, steady(300, 4, 0.4, 2.6, 0)).decide(), Action.Hold, "WithinTargets", 4);
      assertVerdict(
          inputs(4, steady(300, 4, 0.4, 2.5, 0)).decide(),
          Action.ScaleDown,
          "TargetsMetWithFewerNodes",
          3);
    }

    @Test
    void withoutAFullnessTargetTheHighWatermarkBoundsTheProjection() {
      AutoscalingPolicy missesOnly = policy().bounds(1, 6).missesOnly(5).build();
      // 4 nodes at 65 %: 3 nodes would be 86.7 % <= 90 %
      assertVerdict(
          inputs(4, steady(300, 4, 0.65, 0, 0)).policy(missesOnly).decide(),
          Action.ScaleDown,
          "TargetsMetWithFewerNodes",
          3);
      // 4 nodes at 70 %: 93.3 % > 90 %
      assertVerdict(
          inputs(4, steady(300, 4, 0.7, 0, 0)).policy(missesOnly).decide(),
          Action.Hold,
          "WithinTargets",
          4);
    }

    @Test
    void theWindowMustBeCovered() {
      assertVerdict(inputs(4, steady(290, 4, 0.4, 0, 0)).decide(), Action.Hold, "WithinTargets", 4);
    }

    @Test
    void neverBelowTheMinimum() {
      assertVerdict(inputs(2, steady(300, 2, 0.1, 0, 0)).decide(), Action.Hold, "WithinTargets", 2);
    }

    @Test
    void neverBelowObjectReplicas() {
      AutoscalingPolicy low = policy().bounds(1, 6).fullnessOnly(0.8).build();
      assertVerdict(
          inputs(3, steady(300, 3, 0.1, 0, 0)).policy(low).objectReplicas(3).decide(),
          Action.Hold,
          "WithinTargets",
          3);
      assertVerdict(
          inputs(3, steady(300, 3, 0.1, 0, 0)).policy(low).objectReplicas(2).decide(),
          Action.ScaleDown,
          "TargetsMetWithFewerNodes",
          2);
    }

    @Test
    void neverDuringARollout() {
      ScalingVerdict v = inputs(4, steady(300, 4, 0.4, 0, 0)).rollout(true, false).decide();
      assertVerdict(v, Action.Hold, "RolloutInProgress", 4);
    }
  }

  @Nested
  class Bounds {
    @Test
    void belowTheMinimumGrowsAtOnceEvenWithoutSignals() {
      assertVerdict(inputs(1, List.of()).decide(), Action.ScaleUp, "BelowMinimum", 2);
    }

    @Test
    void aboveTheMaximumShrinksToIt() {
      assertVerdict(
          inputs(8, steady(10, 8, 0.2, 0, 0)).decide(), Action.ScaleDown, "AboveMaximum", 6);
    }

    @Test
    void aboveTheMaximumKeepsWhatTheDataNeeds() {
      // 8 nodes at 80 %: 64 GiB of data need ceil(64 / 9) = 8 nodes under the 90 % watermark
      ScalingVerdict v = inputs(8, steady(10, 8, 0.8, 0, 0)).decide();
      assertVerdict(v, Action.Hold, "DataNeedsNodes", 8);
      // at 60 %: 48 GiB need 6 nodes → max 6 holds
      assertVerdict(
          inputs(8, steady(10, 8, 0.6, 0, 0)).decide(), Action.ScaleDown, "AboveMaximum", 6);
      // at 65 %: 52 GiB need 6 (5.8) → 6; at 70 %: 56 GiB need 7 (6.2) → 7
      assertVerdict(
          inputs(8, steady(10, 8, 0.7, 0, 0)).decide(), Action.ScaleDown, "AboveMaximum", 7);
    }

    @Test
    void aboveTheMaximumWaitsForARollout() {
      assertVerdict(
          inputs(8, steady(10, 8, 0.2, 0, 0)).rollout(true, false).decide(),
          Action.Hold,
          "RolloutInProgress",
          8);
    }
  }

  @Nested
  class Rollouts {
    @Test
    void scaleUpGoesOnDuringAnUpgrade() {
      assertVerdict(
          inputs(3, steady(60, 3, 0.85, 0, 0)).rollout(true, false).decide(),
          Action.ScaleUp,
          "TargetExceeded",
          4);
    }

    @Test
    void nothingWhileSurplusNodesDrain() {
      assertVerdict(
          inputs(3, steady(60, 4, 0.95, 0, 0)).rollout(true, true).decide(),
          Action.Hold,
          "ScalingDown",
          3);
      assertVerdict(
          inputs(1, List.of()).rollout(true, true).decide(), Action.Hold, "ScalingDown", 1);
    }
  }

  @Nested
  class Signals {
    @Test
    void noReadingHolds() {
      assertVerdict(inputs(3, List.of()).decide(), Action.Hold, "NoSignals", 3);
    }

    @Test
    void aReadingOlderThanAMinuteHolds() {
      assertVerdict(
          inputs(3, List.of(sample(61, 3, 0.95, 0, 0))).decide(), Action.Hold, "NoSignals", 3);
    }

    @Test
    void withinTargetsHoldsAndSaysWhere() {
      ScalingVerdict v = inputs(3, steady(300, 3, 0.6, 1, 0)).decide();
      assertVerdict(v, Action.Hold, "WithinTargets", 3);
      assertThat(v.message()).isEqualTo("memory fullness 60.0%, capacity misses 1.00/s");
    }
  }

  @Nested
  class AnotherOwner {
    @Test
    void aCountTheOperatorDidNotWriteIsAdoptedAndHeld() {
      ScalingVerdict v = inputs(5, steady(60, 5, 0.95, 0, 0)).lastWritten(3).decide();
      assertVerdict(v, Action.Hold, "ExternalOwner", 5);
      assertThat(v.message()).contains("from 3 to 5").contains("holds for 300s");
    }

    @Test
    void theHoldLastsTheLongerWindowAfterTheChangeWasSeen() {
      Inputs held = inputs(5, steady(300, 5, 0.95, 0, 0)).externalSeen(NOW.minusSeconds(299));
      assertVerdict(held.decide(), Action.Hold, "ExternalOwner", 5);
      assertVerdict(
          held.externalSeen(NOW.minusSeconds(300)).decide(), Action.ScaleUp, "TargetExceeded", 6);
    }

    @Test
    void theHoldIsAtLeastFiveMinutes() {
      AutoscalingPolicy quick = policy().fullnessOnly(0.8).up(0, 1).down(30, 1).build();
      Inputs held = inputs(5, steady(300, 5, 0.95, 0, 0)).policy(quick);
      assertVerdict(
          held.externalSeen(NOW.minusSeconds(299)).decide(), Action.Hold, "ExternalOwner", 5);
      assertVerdict(
          held.externalSeen(NOW.minusSeconds(300)).decide(), Action.ScaleUp, "TargetExceeded", 6);
      assertThat(held.lastWritten(3).decide().message()).contains("holds for 300s");
    }

    @Test
    void theFirstRoundAfterEnablingAdoptsTheCount() {
      assertVerdict(
          inputs(3, steady(60, 3, 0.85, 0, 0)).lastWritten(null).decide(),
          Action.ScaleUp,
          "TargetExceeded",
          4);
    }

    @Test
    void anotherOwnerWinsOverTheBounds() {
      assertVerdict(inputs(9, List.of()).lastWritten(4).decide(), Action.Hold, "ExternalOwner", 9);
    }
  }

  @Test
  void dataFloorIsObjectReplicasAndTheBytesUnderTheWatermark() {
    AutoscalingInputs in =
        new AutoscalingInputs(POLICY, 4, 4, null, List.of(), false, false, 2, 0.9, NOW);
    assertThat(Autoscaler.dataFloor(in, java.util.Optional.empty())).isEqualTo(2);
    // 4 × 10 GiB at 50 %: 20 GiB / 9 GiB = 2.2 → 3
    assertThat(Autoscaler.dataFloor(in, java.util.Optional.of(sample(0, 4, 0.5, 0, 0))))
        .isEqualTo(3);
  }

  /** {@code reading} with a disk tier of {@code diskGib} per node holding {@code diskUsedGib}. */
  static SignalSample withDisk(SignalSample reading, long diskGib, long diskUsedGib) {
    return new SignalSample(
        reading.at(),
        reading.aliveNodes(),
        reading.usedBytes(),
        reading.capacityBytes(),
        reading.fullness(),
        reading.capacityMissesPerSecond(),
        reading.evictedBytesPerSecond(),
        List.of(
            new io.kvpool.admin.MasterStatus.Tier(
                "disk", reading.aliveNodes() * diskGib * GIB, diskUsedGib * GIB, 0)));
  }

  @Test
  void dataFloorCountsTheDataOnADiskTier() {
    AutoscalingInputs in =
        new AutoscalingInputs(POLICY, 4, 4, null, List.of(), false, false, 2, 0.9, NOW);
    // memory 4 × 10 GiB at 50 % needs 3; the disk 4 × 100 GiB holding 350 GiB needs 350 / 90 → 4
    assertThat(
            Autoscaler.dataFloor(
                in, java.util.Optional.of(withDisk(sample(0, 4, 0.5, 0, 0), 100, 350))))
        .isEqualTo(4);
    // a disk holding little leaves the memory's floor
    assertThat(
            Autoscaler.dataFloor(
                in, java.util.Optional.of(withDisk(sample(0, 4, 0.5, 0, 0), 100, 10))))
        .isEqualTo(3);
  }

  @Test
  void dataOnTheDiskTierKeepsTheNodesItNeeds() {
    // 3 nodes, memory at 10 % (it would fit one node): without a disk tier the pool shrinks
    List<SignalSample> memoryOnly = steady(300, 3, 0.1, 0, 0);
    assertVerdict(inputs(3, memoryOnly).decide(), Action.ScaleDown, "TargetsMetWithFewerNodes", 2);
    // with 3 × 100 GiB of disk holding 250 GiB: 250 / 90 → 3 nodes, none can go
    List<SignalSample> diskFull = memoryOnly.stream().map(s -> withDisk(s, 100, 250)).toList();
    assertVerdict(inputs(3, diskFull).decide(), Action.Hold, "WithinTargets", 3);
  }
}
