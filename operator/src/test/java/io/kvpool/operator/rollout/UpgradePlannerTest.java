package io.kvpool.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.UpgradeFailurePolicy;
import io.kvpool.operator.rollout.RolloutPlan.StepKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The planner over every phase of a rollout, played on a model pool of 3 masters and 4 storage
 * nodes.
 */
class UpgradePlannerTest {

  @Test
  void aPoolWhosePodsRunTheirTemplatesIsDone() {
    RolloutPlan plan = new RolloutModel().plan();
    assertThat(plan.phase()).isEqualTo(RolloutPhase.Completed);
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Done.class);
    assertThat(plan.updated()).isEqualTo(7);
    assertThat(plan.total()).isEqualTo(7);
  }

  @Test
  void anUpgradeReplacesStorageNodesHighestFirstThenStandbysThenTheLeaderOnePodAtATime() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    List<String> steps = play(pool);
    assertThat(steps)
        .containsExactly(
            "StorageNodes Drain p-storage-3",
            "StorageNodes Replace p-storage-3 AFTER_DRAIN",
            "StorageNodes Drain p-storage-2",
            "StorageNodes Replace p-storage-2 AFTER_DRAIN",
            "StorageNodes Drain p-storage-1",
            "StorageNodes Replace p-storage-1 AFTER_DRAIN",
            "StorageNodes Drain p-storage-0",
            "StorageNodes Replace p-storage-0 AFTER_DRAIN",
            "StandbyMasters Replace p-master-2 MASTER",
            "StandbyMasters Replace p-master-1 MASTER",
            "Leader StepDown p-master-0",
            "StandbyMasters Replace p-master-0 MASTER",
            "Completed Done");
    assertThat(pool.plan().updated()).isEqualTo(7);
  }

  @Test
  void anOperatorRestartedMidRolloutTakesUpTheSameStepFromThePodsAndTheLeader() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    for (int i = 0; i < 3; i++) { // drain s3, replace s3, drain s2
      pool.apply(pool.plan().action());
    }
    RolloutPlan before = pool.plan();
    pool.step =
        null; // a restarted operator whose status lost the step: the pods and the leader still tell
    RolloutPlan after = pool.plan();
    assertThat(after).isEqualTo(before);
    assertThat(after.action()).isInstanceOf(RolloutPlan.Replace.class);
    assertThat(after.action().pod()).isEqualTo("p-storage-2");
    assertThat(after.updated()).isEqualTo(1);
  }

  @Test
  void aDrainUnderWayIsWaitedForUntilTheNodeIsEmptyAndNothingWaitsForACopy() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.apply(pool.plan().action());
    pool.node("p-storage-3").replicas = 40;
    pool.underReplicated = 40;
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Wait.class);
    assertThat(plan.action().describe()).contains("draining p-storage-3: 40 replicas left");
    pool.node("p-storage-3").replicas = 0;
    assertThat(pool.plan().action()).isInstanceOf(RolloutPlan.Wait.class);
    pool.underReplicated = 0;
    assertThat(pool.plan().action())
        .isEqualTo(
            new RolloutPlan.Replace(
                "p-storage-3",
                StepKind.AFTER_DRAIN,
                "p-storage-3 is drained: replacing it to run release 1.1.0"));
  }

  @Test
  void aWarmRestartReplacesAStorageNodeWithoutADrainWhenBothImagesWriteTheSameInventory() {
    RolloutModel pool = new RolloutModel().warm(true, 1, 1).upgradeTo(RolloutModel.NEW);
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Replace.class);
    RolloutPlan.Replace replace = (RolloutPlan.Replace) plan.action();
    assertThat(replace.pod()).isEqualTo("p-storage-3");
    assertThat(replace.kind()).isEqualTo(StepKind.WARM_RESTART);
    assertThat(replace.describe())
        .contains("warm restart")
        .contains("100 replicas")
        .contains("node-a");
    List<String> steps = play(pool);
    assertThat(steps)
        .filteredOn(s -> s.contains("storage"))
        .containsExactly(
            "StorageNodes Replace p-storage-3 WARM_RESTART",
                "StorageNodes Replace p-storage-2 WARM_RESTART",
            "StorageNodes Replace p-storage-1 WARM_RESTART",
                "StorageNodes Replace p-storage-0 WARM_RESTART");
  }

  @Test
  void aWarmRestartRefusedBecauseTheInventoryFormatChangesFallsBackToADrain() {
    RolloutModel pool = new RolloutModel().warm(true, 1, 2).upgradeTo(RolloutModel.NEW);
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Drain.class);
    assertThat(plan.action().pod()).isEqualTo("p-storage-3");
    assertThat(plan.action().describe())
        .contains("no warm restart: the inventory format changes from 1 to 2");
  }

  @Test
  void aWarmRestartWaitsForTheImageChecksThatTellTheFormats() {
    RolloutModel pool = new RolloutModel().warm(true, 1, 1).upgradeTo(RolloutModel.NEW);
    pool.formats.remove("kvpool/data-plane:" + RolloutModel.OLD);
    pool.checking.add("kvpool/data-plane:" + RolloutModel.OLD);
    assertThat(pool.plan().action())
        .isEqualTo(
            new RolloutPlan.Wait(
                "p-storage-3",
                "waiting for the image checks to"
                    + " tell the inventory formats before p-storage-3 is restarted warm"));
    pool.checking.clear();
    pool.formats.put("kvpool/data-plane:" + RolloutModel.OLD, 1);
    assertThat(((RolloutPlan.Replace) pool.plan().action()).kind())
        .isEqualTo(StepKind.WARM_RESTART);
  }

  @Test
  void aWarmRestartNeedsTheFormatsKnownAndTheMemoryFilesOnBothSides() {
    RolloutModel unknown = new RolloutModel().warm(true, 1, 1).upgradeTo(RolloutModel.NEW);
    unknown.formats.clear();
    assertThat(unknown.plan().action().describe())
        .contains("inventory format of image kvpool/data-plane:1.0.0 is" + " not known");
    RolloutModel turnedOff = new RolloutModel().warm(true, 1, 1).upgradeTo(RolloutModel.NEW);
    turnedOff.warmTemplate = false;
    assertThat(turnedOff.plan().action()).isInstanceOf(RolloutPlan.Drain.class);
    assertThat(turnedOff.plan().action().describe()).contains("spec.storage.warmRestart is off");
    RolloutModel neverOn = new RolloutModel().upgradeTo(RolloutModel.NEW);
    assertThat(neverOn.plan().action().describe()).contains("keeps no memory files");
  }

  @Test
  void aReplacementThatNeverBecomesReadyTimesOutAfterTheStepTimeout() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.apply(pool.plan().action()); // drain s3
    pool.apply(pool.plan().action()); // replace s3
    pool.pod("p-storage-3").ready = false;
    RolloutPlan waiting = pool.plan();
    assertThat(waiting.phase()).isEqualTo(RolloutPhase.StorageNodes);
    assertThat(waiting.action())
        .isEqualTo(
            new RolloutPlan.Wait(
                "p-storage-3",
                "waiting for p-storage-3 to register"
                    + " with the leader and be ready on release 1.1.0"));
    pool.now = pool.pod("p-storage-3").created.plus(Duration.ofMinutes(10));
    assertThat(pool.plan().action()).isInstanceOf(RolloutPlan.Wait.class);
    pool.now = pool.now.plus(Duration.ofSeconds(1));
    RolloutPlan timedOut = pool.plan();
    assertThat(timedOut.phase()).isEqualTo(RolloutPhase.TimedOut);
    assertThat(timedOut.action()).isInstanceOf(RolloutPlan.TimedOut.class);
    assertThat(timedOut.action().pod()).isEqualTo("p-storage-3");
    assertThat(timedOut.action().describe()).contains("not done within the step timeout of 10m");
    // nothing else is touched meanwhile, and once it is ready the rollout goes on by itself
    pool.pod("p-storage-3").ready = true;
    assertThat(pool.plan().action()).isInstanceOf(RolloutPlan.Drain.class);
    assertThat(pool.plan().action().pod()).isEqualTo("p-storage-2");
  }

  @Test
  void aDrainThatDoesNotFinishTimesOut() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.policy =
        new RolloutObservation.Policy(
            false, Duration.ofSeconds(30), UpgradeFailurePolicy.Pause, false);
    pool.apply(pool.plan().action());
    pool.node("p-storage-3").replicas = 3;
    pool.now = pool.now.plus(Duration.ofSeconds(31));
    assertThat(pool.plan().action()).isInstanceOf(RolloutPlan.TimedOut.class);
    assertThat(pool.plan().action().describe())
        .contains("draining p-storage-3: 3 replicas left")
        .contains("step timeout of 30s");
  }

  @Test
  void aPausedPoolHoldsEveryStep() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.policy =
        new RolloutObservation.Policy(
            true, Duration.ofMinutes(10), UpgradeFailurePolicy.Pause, false);
    RolloutPlan plan = pool.plan();
    assertThat(plan.phase()).isEqualTo(RolloutPhase.Paused);
    assertThat(plan.action()).isEqualTo(new RolloutPlan.Wait(null, "held by spec.upgrade.paused"));
    assertThat(plan.updated()).isZero();
    // a paused pool without anything to roll is simply done
    RolloutModel idle = new RolloutModel();
    idle.policy = pool.policy;
    assertThat(idle.plan().phase()).isEqualTo(RolloutPhase.Completed);
  }

  @Test
  void withTheLeaderLostMidRolloutNothingMovesUntilANewLeaderServes() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.apply(pool.plan().action()); // drain s3
    pool.apply(pool.plan().action()); // replace s3
    pool.leaderReadable = false;
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Wait.class);
    assertThat(plan.action().describe()).contains("the leader's status cannot be read");
    pool.leaderReadable = true;
    pool.leaderState = "RECOVERING";
    pool.leader = "p-master-1";
    assertThat(pool.plan().action().describe()).contains("lease recovery under way");
    pool.leaderState = "SERVING";
    assertThat(pool.plan().action()).isInstanceOf(RolloutPlan.Drain.class);
    assertThat(pool.plan().action().pod()).isEqualTo("p-storage-2");
  }

  @Test
  void anUnhealthyPoolStartsNoStepButAnOutdatedPodThatIsNotReadyIsReplacedFirst() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.node("p-storage-0").state = "DEAD";
    assertThat(pool.plan().action().describe()).contains("storage node p-storage-0 is DEAD");
    pool.pod("p-storage-1").ready = false;
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Replace.class);
    assertThat(((RolloutPlan.Replace) plan.action()).kind()).isEqualTo(StepKind.REPAIR);
    assertThat(plan.action().pod()).isEqualTo("p-storage-1");
    RolloutModel copying = new RolloutModel().upgradeTo(RolloutModel.NEW);
    copying.underReplicated = 5;
    assertThat(copying.plan().action().describe()).contains("5 objects wait for a replica copy");
  }

  @Test
  void theLeaderStepsDownOnceAndAgainOnlyIfLeadershipDidNotMove() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    RolloutPlan.Action a;
    while (!((a = pool.plan().action()) instanceof RolloutPlan.StepDown)) {
      pool.apply(a);
    }
    assertThat(a.pod()).isEqualTo("p-master-0");
    assertThat(pool.plan().phase()).isEqualTo(RolloutPhase.Leader);
    String leader = pool.leader;
    pool.apply(a);
    pool.leader = leader; // leadership did not move yet
    assertThat(pool.plan().action())
        .isEqualTo(
            new RolloutPlan.Wait(
                "p-master-0",
                "waiting for leader p-master-0 to" + " hand over to an updated standby"));
    pool.now = pool.now.plus(UpgradePlanner.STEP_DOWN_RETRY);
    assertThat(pool.plan().action()).isInstanceOf(RolloutPlan.StepDown.class);
    pool.now = pool.now.plus(Duration.ofMinutes(10));
    assertThat(pool.plan().action()).isInstanceOf(RolloutPlan.TimedOut.class);
  }

  @Test
  void aSoleMasterIsReplacedWithoutAStepDown() {
    RolloutModel pool = new RolloutModel();
    pool.pods.remove("p-master-1");
    pool.pods.remove("p-master-2");
    pool.masterReplicas = 1;
    pool.masterTemplate = "m-changed"; // a master resource change: only the master template changes
    RolloutPlan plan = pool.plan();
    assertThat(plan.phase()).isEqualTo(RolloutPhase.Leader);
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Replace.class);
    assertThat(plan.action().describe()).contains("sole master p-master-0");
  }

  @Test
  void aScaleDownDrainsAndRemovesSurplusNodesHighestOrdinalFirstOneAtATime() {
    RolloutModel pool = new RolloutModel();
    pool.storageDesired = 2;
    List<String> steps = play(pool);
    assertThat(steps)
        .containsExactly(
            "ScalingDown Drain p-storage-3",
            "ScalingDown MarkDrained p-storage-3",
            "ScalingDown Drain p-storage-2",
            "ScalingDown MarkDrained p-storage-2",
            "Completed Done");
  }

  @Test
  void aScaleDownWhoseBytesDoNotFitIsRefusedWithTheFigures() {
    RolloutModel pool = new RolloutModel();
    pool.storageDesired = 3;
    pool.nodes.values().forEach(n -> n.used = 60 * RolloutModel.MIB);
    RolloutPlan plan = pool.plan();
    assertThat(plan.phase()).isEqualTo(RolloutPhase.ScalingDown);
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Refused.class);
    assertThat(plan.action().describe())
        .isEqualTo(
            "cannot remove p-storage-3: its 60Mi of replicas do not fit in"
                + " the 12Mi free on the 3 other storage nodes; free space or keep spec.storage.replicas at 4");
  }

  @Test
  void aDrainedNodeWantedAgainAfterAScaleUpIsRestartedSoItTakesPlacements() {
    RolloutModel pool = new RolloutModel();
    pool.node("p-storage-3").state = "DRAINING";
    pool.node("p-storage-3").replicas = 0;
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Replace.class);
    assertThat(plan.action().describe()).contains("drained but the pool wants it");
  }

  @Test
  void podsThatAreNotReadyWhileThePoolIsCreatedNeverTimeOut() {
    RolloutModel pool = new RolloutModel();
    pool.pods.values().forEach(p -> p.ready = false);
    pool.now = pool.now.plus(Duration.ofHours(5));
    RolloutPlan plan = pool.plan();
    assertThat(plan.phase()).isEqualTo(RolloutPhase.Completed);
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Wait.class);
  }

  @Test
  void withTooFewNodesToDrainAStorageNodeIsRestartedOnlyWhenItsObjectsHaveOtherReplicas() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.objectReplicas = 4;
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Replace.class);
    assertThat(((RolloutPlan.Replace) plan.action()).kind()).isEqualTo(StepKind.RESTART);
    assertThat(plan.action().describe())
        .contains("only 3 other storage nodes for 4 replicas per object");
    RolloutModel single = new RolloutModel().upgradeTo(RolloutModel.NEW);
    single.objectReplicas = 1;
    single.nodes.values().forEach(n -> n.used = 60 * RolloutModel.MIB);
    assertThat(single.plan().action()).isInstanceOf(RolloutPlan.Refused.class);
  }

  @Test
  void aRollbackReplacesThePodsOnTheFailedReleaseUnreadyFirst() {
    RolloutModel pool = new RolloutModel().upgradeTo(RolloutModel.NEW);
    pool.apply(pool.plan().action()); // drain s3
    pool.apply(pool.plan().action()); // replace s3: now on 1.1.0 and never ready
    pool.pod("p-storage-3").ready = false;
    // the gate renders 1.0.0 again: the templates are the old ones
    pool.release = RolloutModel.OLD;
    pool.image = "kvpool/data-plane:" + RolloutModel.OLD;
    pool.masterTemplate = "m-old";
    pool.storageTemplate = "s-old";
    pool.policy =
        new RolloutObservation.Policy(
            false, Duration.ofMinutes(10), UpgradeFailurePolicy.Rollback, true);
    RolloutPlan plan = pool.plan();
    assertThat(plan.action()).isInstanceOf(RolloutPlan.Replace.class);
    assertThat(plan.action().pod()).isEqualTo("p-storage-3");
    assertThat(((RolloutPlan.Replace) plan.action()).kind()).isEqualTo(StepKind.REPAIR);
    pool.apply(plan.action());
    assertThat(play(pool)).containsExactly("Completed Done");
  }

  /** Plans and applies until done; returns "phase action pod [kind]" per step (waits left out). */
  private static List<String> play(RolloutModel pool) {
    List<String> steps = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      RolloutPlan plan = pool.plan();
      RolloutPlan.Action a = plan.action();
      if (a instanceof RolloutPlan.Wait) {
        throw new AssertionError("the model never waits, but the planner did: " + a.describe());
      }
      String kind = a instanceof RolloutPlan.Replace r ? " " + r.kind() : "";
      steps.add(
          plan.phase()
              + " "
              + a.getClass().getSimpleName()
              + (a.pod() == null ? "" : " " + a.pod())
              + kind);
      if (a instanceof RolloutPlan.Done
          || a instanceof RolloutPlan.Refused
          || a instanceof RolloutPlan.TimedOut) {
        return steps;
      }
      pool.apply(a);
    }
    throw new AssertionError("no end after 100 steps: " + steps);
  }
}
