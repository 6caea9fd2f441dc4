package io.kvpool.operator.status;

import static io.kvpool.api.v1alpha1.KvCachePoolStatus.AVAILABLE;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.DEGRADED;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.PROGRESSING;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.READY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Condition;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.FailingPod;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.TierUsage;
import io.kvpool.operator.common.Conditions;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolEventReason;
import io.kvpool.operator.common.StatusMessage;
import io.kvpool.operator.rollout.ReleaseGate;
import io.kvpool.operator.rollout.RolloutPlan;
import io.kvpool.operator.rollout.RolloutRound;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolStatusAggregatorTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final MasterStatus MASTER = master("SERVING", nodes(3, "ALIVE"));

  private static List<MasterStatus.NodeStatus> nodes(int n, String state) {
    List<MasterStatus.NodeStatus> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(node(i, state));
    }
    return nodes;
  }

  private static MasterStatus.NodeStatus node(int ordinal, String state) {
    return new MasterStatus.NodeStatus(
        "p-storage-" + ordinal,
        "10.0.0." + ordinal + ":50052",
        state,
        4L << 30,
        1L << 30,
        400,
        "0.1.0",
        "2.0",
        100);
  }

  private static MasterStatus master(String state, List<MasterStatus.NodeStatus> nodes) {
    return new MasterStatus(
        AdminJson.API_VERSION,
        "p",
        "LEADER",
        state,
        4,
        new MasterStatus.Leader("p-master-0", "10.0.1.1:50051", "10.0.1.1:8080"),
        "0.1.0",
        "2.0",
        new MasterStatus.Recovery("RECOVERING".equals(state), 0, List.of()),
        nodes,
        12L << 30,
        3L << 30,
        1234,
        null,
        null,
        null);
  }

  private static PoolStatusAggregator at(Instant now) {
    return new PoolStatusAggregator(Clock.fixed(now, ZoneOffset.UTC));
  }

  private static ReplicaState ready(int n) {
    return new ReplicaState(n, n, n, true, true, "0.1.0");
  }

  private static ReplicaState readyOf(int ready, int desired) {
    return new ReplicaState(desired, ready, desired, true, true, "0.1.0");
  }

  /** An observation built up field by field; defaults describe a healthy pool at generation 1. */
  private static final class Observed {
    long generation = 1;
    String version = "0.1.0";
    List<String> problems = List.of();
    Optional<ReplicaState> masters = Optional.of(ready(1));
    Optional<ReplicaState> storage = Optional.of(ready(3));
    Optional<MasterStatus> master = Optional.of(MASTER);
    String masterError;
    List<FailingPod> failing = List.of();
    Set<String> releases = Set.of();
    String labelledLeader;
    String reconcileError;
    Optional<RolloutRound.Result> rollout = Optional.empty();

    Observed generation(long value) {
      generation = value;
      return this;
    }

    Observed problems(String... value) {
      problems = List.of(value);
      return this;
    }

    Observed nothingDeployed() {
      masters = Optional.empty();
      storage = Optional.empty();
      master = Optional.empty();
      masterError = "no master pod is ready yet";
      return this;
    }

    Observed replicas(ReplicaState m, ReplicaState s) {
      masters = Optional.of(m);
      storage = Optional.of(s);
      return this;
    }

    Observed master(MasterStatus value) {
      master = Optional.of(value);
      return this;
    }

    Observed unreachable(String error) {
      master = Optional.empty();
      masterError = error;
      return this;
    }

    /** A rollout of release 0.2.0 whose plan is {@code action}. */
    Observed rollingOut(RolloutPlan.Action action) {
      ReleaseGate.Release to = new ReleaseGate.Release("0.2.0", "kvpool/data-plane:0.2.0");
      rollout =
          Optional.of(
              new RolloutRound.Result(
                  new RolloutPlan(RolloutPhase.Leader, action, 3, 4),
                  null,
                  List.of(),
                  new ReleaseGate.Decision(
                      to,
                      ReleaseGate.Verdict.PROCEED,
                      null,
                      "rolling out release 0.2.0",
                      Optional.empty(),
                      Optional.empty()),
                  null));
      return this;
    }

    PoolObservation build() {
      return new PoolObservation(
          "p",
          generation,
          version,
          2,
          problems,
          masters,
          storage,
          master,
          masterError,
          failing,
          releases,
          labelledLeader,
          "app.kubernetes.io/name=kvpool",
          reconcileError,
          rollout);
    }
  }

  private static Observed observed() {
    return new Observed();
  }

  /** Pods exist but none is ready: what a pool looks like right after its objects were created. */
  private static Observed starting() {
    return observed()
        .replicas(readyOf(0, 1), readyOf(0, 3))
        .unreachable("no master pod is ready yet");
  }

  private static Condition condition(KvCachePoolStatus status, String type) {
    return Conditions.find(status.getConditions(), type).orElseThrow();
  }

  @Test
  void newPoolWithoutObjectsIsPendingAndProgressing() {
    PoolStatusUpdate update = at(T0).aggregate(null, observed().nothingDeployed().build());

    KvCachePoolStatus status = update.status();
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Pending);
    assertThat(status.getObservedGeneration()).isEqualTo(1);
    assertThat(condition(status, READY).getStatus()).isEqualTo("False");
    assertThat(condition(status, READY).getReason()).isEqualTo("Creating");
    assertThat(condition(status, PROGRESSING).getStatus()).isEqualTo("True");
    assertThat(condition(status, DEGRADED).getStatus()).isEqualTo("False");
    assertThat(status.getStorageReadyReplicas()).isZero();
    assertThat(update.events()).isEmpty();
  }

  @Test
  void allReplicasReadyAndLeaderAnsweringMakesThePoolRunningWithItsFigures() {
    PoolStatusUpdate update = at(T0).aggregate(null, observed().generation(3).build());

    KvCachePoolStatus status = update.status();
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Running);
    assertThat(status.getObservedGeneration()).isEqualTo(3);
    assertThat(status.getMasters()).isEqualTo("1/1");
    assertThat(status.getStorage()).isEqualTo("3/3");
    assertThat(status.getStorageReadyReplicas()).isEqualTo(3);
    assertThat(status.getMasterReadyReplicas()).isEqualTo(1);
    assertThat(status.getLeader()).isEqualTo("p-master-0");
    assertThat(status.getViewNumber()).isEqualTo(4);
    assertThat(status.getCapacity()).isEqualTo("12Gi");
    assertThat(status.getUsed()).isEqualTo("3Gi");
    assertThat(status.getUsedRatio()).isEqualTo(0.25);
    assertThat(status.getObjectCount()).isEqualTo(1234);
    assertThat(status.getCurrentVersion()).isEqualTo("0.1.0");
    assertThat(status.getTargetVersion()).isEqualTo("0.1.0");
    assertThat(status.getStorageSelector()).isEqualTo("app.kubernetes.io/name=kvpool");
    assertThat(status.getFailingPods()).isNull();
    for (String type : List.of(READY, AVAILABLE)) {
      assertThat(condition(status, type).getStatus()).as(type).isEqualTo("True");
    }
    assertThat(condition(status, PROGRESSING).getStatus()).isEqualTo("False");
    assertThat(condition(status, DEGRADED).getStatus()).isEqualTo("False");
    assertThat(condition(status, READY).getObservedGeneration()).isEqualTo(3);
    assertThat(condition(status, READY).getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(update.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.PoolReady);
  }

  /**
   * The "Why" case: a pool degraded before it ever ran, then fixed, showed Running 0/1 0/3 because
   * a previous Degraded phase counted as "ran before". Now it is Creating until its pods serve,
   * stays so, and the fix is announced once as Recovered; deleting and recreating its
   * TransferEngine and an operator restart (a reconcile from the stored status) change nothing.
   */
  @Test
  void aLeaderThatKnowsNoPodNameIsThePodLabelledLeader() {
    Observed outside =
        observed()
            .master(
                new MasterStatus(
                    AdminJson.API_VERSION,
                    "p",
                    "LEADER",
                    "SERVING",
                    1,
                    new MasterStatus.Leader("", "127.0.0.1:50051", "127.0.0.1:8080"),
                    "0.1.0",
                    "2.0",
                    new MasterStatus.Recovery(false, 0, List.of()),
                    nodes(3, "ALIVE"),
                    0,
                    0,
                    0,
                    null,
                    null,
                    null));
    outside.labelledLeader = "p-master-2";

    assertThat(at(T0).aggregate(null, outside.build()).status().getLeader())
        .isEqualTo("p-master-2");
  }

  @Test
  void aPoolThatNeverRanAndIsFixedIsCreatingNotRunning() {
    KvCachePoolStatus invalid =
        at(T0)
            .aggregate(
                null,
                observed()
                    .nothingDeployed()
                    .problems("spec.scheduling.nodeSelector: Invalid value: \"bad key!\"")
                    .build())
            .status();
    assertThat(invalid.getPhase()).isEqualTo(PoolPhase.Failed);
    assertThat(condition(invalid, DEGRADED).getStatus()).isEqualTo("True");

    PoolStatusUpdate fixed =
        at(T0.plusSeconds(10)).aggregate(invalid, starting().generation(2).build());

    assertThat(fixed.status().getPhase()).isEqualTo(PoolPhase.Creating);
    assertThat(fixed.status().getMasters()).isEqualTo("0/1");
    assertThat(fixed.status().getStorage()).isEqualTo("0/3");
    assertThat(condition(fixed.status(), DEGRADED).getStatus()).isEqualTo("False");
    assertThat(condition(fixed.status(), AVAILABLE).getStatus()).isEqualTo("False");
    assertThat(fixed.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.Recovered);

    PoolStatusUpdate later =
        at(T0.plusSeconds(60)).aggregate(fixed.status(), starting().generation(2).build());
    assertThat(later.status()).isEqualTo(fixed.status());
    assertThat(later.events()).isEmpty();

    KvCachePoolStatus engineGone =
        at(T0.plusSeconds(70))
            .aggregate(
                later.status(),
                starting()
                    .generation(2)
                    .problems("spec.transferEngineRef.name: TransferEngine 'tcp' does not exist")
                    .build())
            .status();
    assertThat(engineGone.getPhase()).isEqualTo(PoolPhase.Degraded);
    KvCachePoolStatus engineBack =
        at(T0.plusSeconds(80)).aggregate(engineGone, starting().generation(2).build()).status();
    assertThat(engineBack.getPhase()).isEqualTo(PoolPhase.Creating);

    KvCachePoolStatus storedAsRunning = copyWithPhase(engineBack, PoolPhase.Running);
    assertThat(
            at(T0.plusSeconds(90))
                .aggregate(storedAsRunning, starting().generation(2).build())
                .status()
                .getPhase())
        .as("a stale stored phase is not believed")
        .isEqualTo(PoolPhase.Creating);
  }

  private static KvCachePoolStatus copyWithPhase(KvCachePoolStatus status, PoolPhase phase) {
    KvCachePoolStatus copy = at(T0).aggregate(status, starting().generation(2).build()).status();
    copy.setPhase(phase);
    return copy;
  }

  @Test
  void unchangedConditionsKeepTheirTransitionTimeAndEmitNoEventAgain() {
    KvCachePoolStatus first = at(T0).aggregate(null, observed().build()).status();

    PoolStatusUpdate second = at(T0.plusSeconds(60)).aggregate(first, observed().build());

    assertThat(second.status()).isEqualTo(first);
    assertThat(condition(second.status(), READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");
    assertThat(second.events()).isEmpty();
  }

  @Test
  void aConditionWhoseMessageOrReasonChangesKeepsItsTransitionTime() {
    KvCachePoolStatus oneReady =
        at(T0)
            .aggregate(null, starting().replicas(ready(1), readyOf(1, 3)).master(MASTER).build())
            .status();

    KvCachePoolStatus twoReady =
        at(T0.plusSeconds(30))
            .aggregate(
                oneReady, starting().replicas(ready(1), readyOf(2, 3)).master(MASTER).build())
            .status();
    KvCachePoolStatus mastersDown =
        at(T0.plusSeconds(40))
            .aggregate(twoReady, starting().replicas(readyOf(0, 1), readyOf(2, 3)).build())
            .status();

    assertThat(condition(oneReady, READY).getMessage()).isEqualTo("1/3 storage nodes ready");
    assertThat(condition(twoReady, READY).getMessage()).isEqualTo("2/3 storage nodes ready");
    assertThat(condition(twoReady, READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");
    assertThat(condition(mastersDown, READY).getReason()).isEqualTo("MastersNotReady");
    assertThat(condition(mastersDown, READY).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");
  }

  @Test
  void aConditionWhoseStatusChangesGetsANewTransitionTime() {
    KvCachePoolStatus first = at(T0).aggregate(null, observed().build()).status();

    KvCachePoolStatus second =
        at(T0.plusSeconds(60))
            .aggregate(first, observed().replicas(ready(1), readyOf(2, 3)).build())
            .status();

    assertThat(condition(second, READY).getStatus()).isEqualTo("False");
    assertThat(condition(second, READY).getReason()).isEqualTo("StorageNotReady");
    assertThat(condition(second, READY).getLastTransitionTime()).isEqualTo("2026-01-01T10:01:00Z");
    assertThat(condition(second, AVAILABLE).getStatus())
        .as("2 storage nodes still cover objectReplicas=2")
        .isEqualTo("True");
    assertThat(condition(second, AVAILABLE).getLastTransitionTime())
        .isEqualTo("2026-01-01T10:00:00Z");
  }

  @Test
  void readyNeedsTheLeaderToCountEveryStorageNodeAlive() {
    MasterStatus twoAlive = master("SERVING", List.of(node(0, "ALIVE"), node(1, "ALIVE")));
    MasterStatus oneAlive = master("SERVING", List.of(node(0, "ALIVE")));

    KvCachePoolStatus two = at(T0).aggregate(null, observed().master(twoAlive).build()).status();
    KvCachePoolStatus one = at(T0).aggregate(null, observed().master(oneAlive).build()).status();

    assertThat(condition(two, READY).getStatus()).isEqualTo("False");
    assertThat(condition(two, READY).getReason()).isEqualTo("StorageNotRegistered");
    assertThat(condition(two, READY).getMessage())
        .isEqualTo("the leader counts 2 of 3 storage nodes alive");
    assertThat(condition(two, AVAILABLE).getStatus()).isEqualTo("True");
    assertThat(two.getPhase()).isEqualTo(PoolPhase.Running);
    assertThat(condition(one, AVAILABLE).getReason()).isEqualTo("TooFewStorageNodes");
    assertThat(one.getPhase())
        .as("pods ready, but objects cannot get two replicas")
        .isEqualTo(PoolPhase.Creating);
  }

  @Test
  void readyNamesTheStorageNodesTheLeaderHasNotHeardFromLately() {
    MasterStatus.NodeStatus quiet = node(1, "ALIVE");
    MasterStatus.NodeStatus frozen =
        new MasterStatus.NodeStatus(
            quiet.id(),
            quiet.endpoint(),
            quiet.state(),
            quiet.capacityBytes(),
            quiet.usedBytes(),
            quiet.replicas(),
            quiet.version(),
            quiet.protocolVersion(),
            4_240,
            quiet.transport(),
            quiet.devices(),
            null,
            true);
    MasterStatus leader = master("SERVING", List.of(node(0, "ALIVE"), frozen, node(2, "ALIVE")));

    KvCachePoolStatus status = at(T0).aggregate(null, observed().master(leader).build()).status();

    assertThat(condition(status, READY).getStatus()).isEqualTo("False");
    assertThat(condition(status, READY).getReason()).isEqualTo("StorageNodesSilent");
    assertThat(condition(status, READY).getMessage())
        .isEqualTo(
            "the leader has not heard from storage node p-storage-1 (last heartbeat 4.2 s ago),"
                + " frozen, overloaded or cut off: it places new values on the other nodes and"
                + " declares a node dead at its node TTL unless it is heard from again");
    assertThat(condition(status, AVAILABLE).getStatus()).isEqualTo("True");
    assertThat(condition(status, DEGRADED).getStatus())
        .as("waiting fixes it: the node answers again or is declared dead and repaired")
        .isEqualTo("False");
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Running);

    KvCachePoolStatus heard =
        at(T0.plusSeconds(10))
            .aggregate(status, observed().master(master("SERVING", nodes(3, "ALIVE"))).build())
            .status();
    assertThat(condition(heard, READY).getReason()).isEqualTo("AllReplicasReady");
  }

  @Test
  void aRecoveringLeaderIsNotServingYet() {
    KvCachePoolStatus status =
        at(T0)
            .aggregate(null, observed().master(master("RECOVERING", nodes(3, "ALIVE"))).build())
            .status();

    assertThat(condition(status, READY).getReason()).isEqualTo("LeaderNotServing");
    assertThat(condition(status, AVAILABLE).getReason()).isEqualTo("LeaderNotServing");
    assertThat(condition(status, AVAILABLE).getMessage())
        .contains("RECOVERING")
        .contains("lease recovery");
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Creating);
  }

  @Test
  void aRecoveringLeaderNamesTheRecordedStorageNodesItWaitsFor() {
    MasterStatus waiting = master("RECOVERING", nodes(2, "ALIVE"));
    waiting =
        new MasterStatus(
            waiting.apiVersion(),
            waiting.poolId(),
            waiting.role(),
            waiting.state(),
            waiting.view(),
            waiting.leader(),
            waiting.releaseVersion(),
            waiting.protocolVersion(),
            new MasterStatus.Recovery(true, 0, List.of("p-storage-2")),
            waiting.nodes(),
            waiting.capacityBytes(),
            waiting.usedBytes(),
            waiting.objectCount(),
            waiting.counters(),
            null,
            null);
    KvCachePoolStatus status = at(T0).aggregate(null, observed().master(waiting).build()).status();

    assertThat(condition(status, AVAILABLE).getMessage())
        .contains("lease recovery under way, waiting for storage node(s) p-storage-2 to register");
  }

  @Test
  void unreachableLeaderWithReadyMasterPodsIsDegradedOnceWithTheReason() {
    KvCachePoolStatus running = at(T0).aggregate(null, observed().build()).status();
    PoolObservation unreachable =
        observed()
            .unreachable(
                "master admin http://p-master.ns.svc:8080/status unreachable: ConnectException")
            .build();

    PoolStatusUpdate degraded = at(T0.plusSeconds(10)).aggregate(running, unreachable);
    PoolStatusUpdate again = at(T0.plusSeconds(20)).aggregate(degraded.status(), unreachable);

    assertThat(degraded.status().getPhase()).isEqualTo(PoolPhase.Degraded);
    Condition condition = condition(degraded.status(), DEGRADED);
    assertThat(condition.getStatus()).isEqualTo("True");
    assertThat(condition.getReason()).isEqualTo("MasterUnreachable");
    assertThat(condition.getMessage()).contains("unreachable");
    assertThat(condition(degraded.status(), AVAILABLE).getStatus()).isEqualTo("False");
    assertThat(degraded.status().getLeader()).as("figures are cleared, not shown stale").isNull();
    assertThat(degraded.status().getCapacity()).isNull();
    assertThat(degraded.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.MasterUnreachable, PoolEventReason.PoolNotReady);
    assertThat(again.events()).isEmpty();

    PoolStatusUpdate recovered =
        at(T0.plusSeconds(30)).aggregate(again.status(), observed().build());
    assertThat(recovered.status().getPhase()).isEqualTo(PoolPhase.Running);
    assertThat(recovered.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.Recovered, PoolEventReason.PoolReady);
  }

  @Test
  void aMasterOutOfReachWhileARolloutReplacesItIsNotDegradedUntilTheStepTimesOut() {
    KvCachePoolStatus running = at(T0).aggregate(null, observed().build()).status();
    String error = "master admin http://p-master.ns.svc:8080/status unreachable: ConnectException";

    PoolStatusUpdate replacing =
        at(T0.plusSeconds(10))
            .aggregate(
                running,
                observed()
                    .unreachable(error)
                    .rollingOut(
                        new RolloutPlan.Wait(
                            "p-master-0", "waiting for p-master-0 to be ready on release 0.2.0"))
                    .build());
    assertThat(condition(replacing.status(), DEGRADED).getStatus()).isEqualTo("False");
    assertThat(condition(replacing.status(), READY).getReason()).isEqualTo("MasterUnreachable");
    assertThat(condition(replacing.status(), PROGRESSING).getMessage())
        .contains("waiting for p-master-0");
    assertThat(replacing.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.PoolNotReady);

    PoolStatusUpdate timedOut =
        at(T0.plusSeconds(700))
            .aggregate(
                replacing.status(),
                observed()
                    .unreachable(error)
                    .rollingOut(
                        new RolloutPlan.TimedOut(
                            "p-master-0", "p-master-0 was not ready within 10m"))
                    .build());
    assertThat(condition(timedOut.status(), DEGRADED).getReason()).isEqualTo("MasterUnreachable");
    assertThat(timedOut.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.MasterUnreachable);

    PoolStatusUpdate storageStep =
        at(T0.plusSeconds(10))
            .aggregate(
                running,
                observed()
                    .unreachable(error)
                    .rollingOut(new RolloutPlan.Wait("p-storage-1", "waiting for p-storage-1"))
                    .build());
    assertThat(condition(storageStep.status(), DEGRADED).getReason())
        .as("only a master step explains it")
        .isEqualTo("MasterUnreachable");
  }

  @Test
  void podsThatCannotStartAreNamedWithTheirReasonAndDegradeThePool() {
    Observed stuck = starting();
    stuck.failing =
        List.of(
            FailingPod.of("p-storage-1", "ImagePullBackOff", "Back-off pulling image \"x:9\""),
            FailingPod.of(
                "p-storage-2", "Unschedulable", "0/3 nodes are available: 3 Insufficient memory."));

    PoolStatusUpdate update = at(T0).aggregate(null, stuck.build());

    assertThat(update.status().getPhase()).isEqualTo(PoolPhase.Degraded);
    assertThat(update.status().getFailingPods())
        .extracting(FailingPod::getName)
        .containsExactly("p-storage-1", "p-storage-2");
    assertThat(condition(update.status(), DEGRADED).getReason()).isEqualTo("PodsFailing");
    assertThat(condition(update.status(), DEGRADED).getMessage())
        .isEqualTo(
            "2 pods cannot start: p-storage-1"
                + " ImagePullBackOff (Back-off pulling image \"x:9\"); p-storage-2 Unschedulable (0/3 nodes are available:"
                + " 3 Insufficient memory.)");
    assertThat(update.events())
        .extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.PodsFailing);
  }

  /**
   * Pods refused at creation (Pod Security, quota) never exist, so no pod can be named: the
   * StatefulSet can.
   */
  @Test
  void podsTheStatefulSetControllerCannotCreateArePointedAt() {
    KvCachePoolStatus status =
        at(T0)
            .aggregate(
                null,
                starting()
                    .replicas(readyOf(0, 1), new ReplicaState(3, 0, 0, true, true, "0.1.0", 0))
                    .build())
            .status();
    KvCachePoolStatus storageOnly =
        at(T0)
            .aggregate(
                null,
                starting()
                    .replicas(ready(1), new ReplicaState(3, 0, 3, true, true, "0.1.0", 0))
                    .master(MASTER)
                    .build())
            .status();
    assertThat(condition(storageOnly, READY).getMessage())
        .startsWith("0/3 storage nodes ready; only 0 of 3");

    String why =
        "only 0 of 3 storage pods exist: 'kubectl describe statefulset p-storage' shows why the others are"
            + " not created (e.g. the namespace's Pod Security level or a quota)";
    assertThat(condition(status, PROGRESSING).getMessage())
        .isEqualTo("masters 1/1 and storage 0/3 on the current" + " template; " + why);
    assertThat(condition(status, READY).getMessage()).isEqualTo("0/1 masters ready");
  }

  @Test
  void storageNodesTheLeaderDeclaredDeadDegradeThePoolButScaledDownOnesDoNot() {
    List<MasterStatus.NodeStatus> lost = new ArrayList<>(nodes(3, "ALIVE"));
    lost.set(1, node(1, "DEAD"));
    List<MasterStatus.NodeStatus> scaledDown = new ArrayList<>(nodes(3, "ALIVE"));
    scaledDown.add(node(3, "DEAD"));

    KvCachePoolStatus degraded =
        at(T0)
            .aggregate(
                null,
                observed()
                    .replicas(ready(1), readyOf(2, 3))
                    .master(master("SERVING", lost))
                    .build())
            .status();
    KvCachePoolStatus fine =
        at(T0).aggregate(null, observed().master(master("SERVING", scaledDown)).build()).status();

    assertThat(condition(degraded, DEGRADED).getReason()).isEqualTo("ReplicasUnavailable");
    assertThat(condition(degraded, DEGRADED).getMessage()).contains("p-storage-1");
    assertThat(condition(fine, DEGRADED).getStatus()).isEqualTo("False");
    assertThat(fine.getPhase()).isEqualTo(PoolPhase.Running);
  }

  @Test
  void invalidSpecIsDegradedAndKeepsTheLastValidTargetVersion() {
    KvCachePoolStatus running = at(T0).aggregate(null, observed().build()).status();
    Observed invalid = observed().generation(2).problems("spec.image changed without version");
    invalid.version = "0.2.0";

    PoolStatusUpdate update = at(T0.plusSeconds(5)).aggregate(running, invalid.build());

    KvCachePoolStatus status = update.status();
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
    assertThat(status.getObservedGeneration()).isEqualTo(2);
    assertThat(status.getTargetVersion()).isEqualTo("0.1.0");
    assertThat(condition(status, DEGRADED).getReason()).isEqualTo("InvalidSpec");
    assertThat(condition(status, DEGRADED).getMessage())
        .contains("spec.image changed without version")
        .contains("last valid state keeps running");
    assertThat(condition(status, AVAILABLE).getStatus())
        .as("the old pods still serve")
        .isEqualTo("True");
    assertThat(status.getMessage()).contains("spec.image changed");
    assertThat(update.events()).extracting(PoolEvent::reason).contains(PoolEventReason.InvalidSpec);
  }

  @Test
  void invalidSpecBeforeAnythingRunsIsFailed() {
    PoolStatusUpdate update =
        at(T0)
            .aggregate(
                null,
                observed().nothingDeployed().problems("TransferEngine 'x' does not exist").build());

    assertThat(update.status().getPhase()).isEqualTo(PoolPhase.Failed);
    assertThat(update.status().getTargetVersion()).isNull();
    assertThat(update.status().getObservedGeneration()).isEqualTo(1);
  }

  @Test
  void scalingStorageIsProgressingAndAnnouncedOnce() {
    KvCachePoolStatus running = at(T0).aggregate(null, observed().build()).status();
    PoolObservation scaling =
        observed()
            .generation(2)
            .replicas(ready(1), new ReplicaState(5, 3, 3, true, false, "0.1.0"))
            .build();

    PoolStatusUpdate update = at(T0.plusSeconds(5)).aggregate(running, scaling);

    assertThat(update.status().getStorage()).isEqualTo("3/5");
    assertThat(update.status().getPhase()).isEqualTo(PoolPhase.Running);
    assertThat(condition(update.status(), PROGRESSING).getStatus()).isEqualTo("True");
    assertThat(condition(update.status(), AVAILABLE).getStatus()).isEqualTo("True");
    assertThat(update.events())
        .extracting(PoolEvent::reason)
        .contains(PoolEventReason.StorageScaled, PoolEventReason.PoolNotReady);
    assertThat(at(T0.plusSeconds(6)).aggregate(update.status(), scaling).events()).isEmpty();
  }

  @Test
  void podsRunningAnotherReleaseThanTheTargetAreUpgrading() {
    KvCachePoolStatus running = at(T0).aggregate(null, observed().build()).status();
    Observed rolling =
        observed()
            .generation(2)
            .replicas(
                new ReplicaState(1, 1, 0, false, true, "0.2.0"),
                new ReplicaState(3, 3, 1, false, true, "0.2.0"));
    rolling.version = "0.2.0";
    rolling.releases = Set.of("0.1.0", "0.2.0");

    KvCachePoolStatus status = at(T0.plusSeconds(5)).aggregate(running, rolling.build()).status();

    assertThat(status.getPhase()).isEqualTo(PoolPhase.Upgrading);
    assertThat(status.getCurrentVersion()).isEqualTo("0.1.0");
    assertThat(status.getTargetVersion()).isEqualTo("0.2.0");
    assertThat(condition(status, PROGRESSING).getReason()).isEqualTo("RollingOut");
  }

  @Test
  void aFailedApplyIsDegradedWithTheGenerationObservedUntilItSucceeds() {
    KvCachePoolStatus running = at(T0).aggregate(null, observed().build()).status();
    Observed failing = observed().generation(3);
    failing.reconcileError = "the API server refused StatefulSet p-master: forbidden";

    PoolStatusUpdate update = at(T0.plusSeconds(5)).aggregate(running, failing.build());

    assertThat(update.status().getObservedGeneration()).isEqualTo(3);
    assertThat(condition(update.status(), DEGRADED).getReason()).isEqualTo("ReconcileFailed");
    assertThat(condition(update.status(), DEGRADED).getMessage()).contains("forbidden");
    assertThat(condition(update.status(), READY).getReason()).isEqualTo("ReconcileFailed");
    assertThat(update.events())
        .extracting(PoolEvent::reason)
        .contains(PoolEventReason.ReconcileFailed);
    assertThat(
            at(T0.plusSeconds(10))
                .aggregate(update.status(), observed().generation(3).build())
                .status()
                .getPhase())
        .isEqualTo(PoolPhase.Running);
  }

  @Test
  void noMessageOrEventExceedsTheBound() {
    Observed huge = starting();
    huge.problems = Collections.nCopies(400, "spec.something is wrong in a very long way");
    huge.failing =
        Collections.nCopies(50, FailingPod.of("p-storage-0", "CrashLoopBackOff", "x".repeat(300)));

    PoolStatusUpdate update = at(T0).aggregate(null, huge.build());

    assertThat(update.status().getConditions())
        .allSatisfy(
            c -> assertThat(c.getMessage()).hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH));
    assertThat(update.status().getMessage()).hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH);
    assertThat(update.events())
        .isNotEmpty()
        .allSatisfy(
            e -> assertThat(e.message()).hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH));
    assertThat(update.status().getFailingPods()).hasSize(PodFailures.MAX_LISTED);
  }

  @Test
  void theTransportOfTheLiveNodesAndTheirDevicesComeFromTheLeader() {
    MasterStatus npu =
        master(
            "SERVING",
            List.of(
                new MasterStatus.NodeStatus(
                    "p-storage-0",
                    "10.0.0.1:50052",
                    "ALIVE",
                    4L << 30,
                    0,
                    0,
                    "0.1.0",
                    "2.0",
                    5,
                    "ascend",
                    List.of("ascend:3")),
                new MasterStatus.NodeStatus(
                    "p-storage-1",
                    "10.0.0.2:50052",
                    "ALIVE",
                    4L << 30,
                    0,
                    0,
                    "0.1.0",
                    "2.0",
                    5,
                    "ascend",
                    List.of("ascend:5")),
                new MasterStatus.NodeStatus(
                    "p-storage-2",
                    "10.0.0.3:50052",
                    "DEAD",
                    0,
                    0,
                    0,
                    "0.1.0",
                    "2.0",
                    99_000,
                    "ascend",
                    List.of("ascend:1"))));

    var transport = PoolStatusAggregator.transport(npu);

    assertThat(transport.getProtocol()).isEqualTo("ascend");
    assertThat(transport.getStorageNodes()).isEqualTo(2);
    assertThat(transport.getDevices())
        .containsExactly("p-storage-0:ascend:3", "p-storage-1:ascend:5");
  }

  /**
   * status.cacheSignals from the leader's, rounded so that a pool at rest does not rewrite its
   * status.
   */
  @Test
  void cacheSignalsAreTheLeadersRounded() {
    MasterStatus plain = master("SERVING", nodes(3, "ALIVE"));
    MasterStatus.CacheSignals signals =
        new MasterStatus.CacheSignals(
            60,
            List.of(new MasterStatus.Tier("memory", 12L << 30, 9L << 30, 0)),
            1234.56,
            100,
            7.4567,
            3.14159,
            0.074567,
            99,
            42);
    KvCachePoolStatus status =
        at(T0).aggregate(null, observed().master(withSignals(plain, signals)).build()).status();
    assertThat(status.getCacheSignals().getFullnessPercent()).isEqualTo(75.0);
    assertThat(status.getCacheSignals().getEvictedBytesPerSecond()).isEqualTo(1235);
    assertThat(status.getCacheSignals().getMissesPerSecond()).isEqualTo(7.46);
    assertThat(status.getCacheSignals().getCapacityMissesPerSecond()).isEqualTo(3.14);
    assertThat(status.getCacheSignals().getMissRatio()).isEqualTo(0.075);
    assertThat(status.getCacheSignals().getTiers())
        .singleElement()
        .satisfies(
            t -> {
              assertThat(t.getName()).isEqualTo("memory");
              assertThat(t.getCapacity()).isEqualTo("12Gi");
              assertThat(t.getFullnessPercent()).isEqualTo(75.0);
            });
    assertThat(at(T0).aggregate(null, observed().build()).status().getCacheSignals())
        .as("a leader without signals")
        .isNull();
  }

  /**
   * With a disk tier, status.cacheSignals.fullnessPercent is the memory tier's (what the autoscaler
   * decides on), not the fill over both tiers; the disk's is in tiers.
   */
  @Test
  void cacheSignalsFullnessIsTheMemoryTiers() {
    MasterStatus.CacheSignals signals =
        new MasterStatus.CacheSignals(
            60,
            List.of(
                new MasterStatus.Tier("memory", 4L << 30, 3L << 30, 1200),
                new MasterStatus.Tier("disk", 60L << 30, 9L << 30, 3400)),
            0,
            0,
            0,
            0,
            0,
            0,
            0);
    KvCachePoolStatus status =
        at(T0)
            .aggregate(
                null,
                observed()
                    .master(withSignals(master("SERVING", nodes(3, "ALIVE")), signals))
                    .build())
            .status();

    assertThat(status.getCacheSignals().getFullnessPercent())
        .as("memory: 3 of 4 GiB, not 12 of 64 GiB over both tiers")
        .isEqualTo(75.0);
    assertThat(status.getCacheSignals().getTiers())
        .extracting(TierUsage::getName, TierUsage::getFullnessPercent, TierUsage::getObjects)
        .containsExactly(tuple("memory", 75.0, 1200L), tuple("disk", 15.0, 3400L));
  }

  private static MasterStatus withSignals(MasterStatus plain, MasterStatus.CacheSignals signals) {
    return new MasterStatus(
        plain.apiVersion(),
        plain.poolId(),
        plain.role(),
        plain.state(),
        plain.view(),
        plain.leader(),
        plain.releaseVersion(),
        plain.protocolVersion(),
        plain.recovery(),
        plain.nodes(),
        plain.capacityBytes(),
        plain.usedBytes(),
        plain.objectCount(),
        plain.counters(),
        signals,
        null);
  }

  /** status.events from the leader's: the topic, the last published sequence and the drops. */
  @Test
  void eventsAreTheLeadersPublishedSequence() {
    MasterStatus plain = master("SERVING", nodes(3, "ALIVE"));
    MasterStatus publishing =
        new MasterStatus(
            plain.apiVersion(),
            plain.poolId(),
            plain.role(),
            plain.state(),
            plain.view(),
            plain.leader(),
            plain.releaseVersion(),
            plain.protocolVersion(),
            plain.recovery(),
            plain.nodes(),
            plain.capacityBytes(),
            plain.usedBytes(),
            plain.objectCount(),
            plain.counters(),
            null,
            new MasterStatus.Events("kv@pool:p@m", 5557, 5558, (4L << 20) + 17, 3));

    KvCachePoolStatus status =
        at(T0).aggregate(null, observed().master(publishing).build()).status();

    assertThat(status.getEvents().getTopic()).isEqualTo("kv@pool:p@m");
    assertThat(status.getEvents().getSequence()).isEqualTo((4L << 20) + 17);
    assertThat(status.getEvents().getDropped()).isEqualTo(3);
    assertThat(at(T0).aggregate(null, observed().build()).status().getEvents())
        .as("a leader that publishes no events")
        .isNull();
  }

  @Test
  void configValidSaysWhichPreflightRuleBroke() {
    KvCachePoolStatus clean = at(T0).aggregate(null, observed().build()).status();
    assertThat(Conditions.find(clean.getConditions(), "ConfigValid").orElseThrow().getReason())
        .isEqualTo("AllRulesPass");
    KvCachePoolStatus broken =
        at(T0)
            .aggregate(
                null,
                observed()
                    .build()
                    .withPreflight(
                        List.of(
                            new io.kvpool.operator.transferengine.EnginePreflight.Finding(
                                "DeviceResourceNotAdvertised",
                                "no node advertises huawei.com/Ascend910",
                                false))))
            .status();
    Condition configValid = Conditions.find(broken.getConditions(), "ConfigValid").orElseThrow();
    assertThat(configValid.getStatus()).isEqualTo("False");
    assertThat(configValid.getReason()).isEqualTo("DeviceResourceNotAdvertised");
    assertThat(configValid.getMessage()).contains("huawei.com/Ascend910");
  }
}
