package io.kvpool.operator.pool;

import static io.kvpool.api.v1alpha1.KvCachePoolStatus.AVAILABLE;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.DEGRADED;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.PROGRESSING;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.READY;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.operator.common.Conditions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolStatusAggregatorTest {
  private static final Instant T0 = Instant.parse("2026-01-01T10:00:00Z");
  private static final MasterStatus MASTER = new MasterStatus("p", "LEADER", "p-master-0", 4, "0.1.0", "1.0",
      3, 3, 12L << 30, 3L << 30, 1234);

  private static PoolStatusAggregator at(Instant now) {
    return new PoolStatusAggregator(Clock.fixed(now, ZoneOffset.UTC));
  }

  private static ReplicaState ready(int n) {
    return new ReplicaState(n, n, n, true, true, "0.1.0");
  }

  private static PoolObservation observation(long generation, List<String> problems, Optional<ReplicaState> masters,
      Optional<ReplicaState> storage, Optional<MasterStatus> master, String masterError) {
    return new PoolObservation(generation, "0.1.0", 2, problems, masters, storage, master, masterError,
        Optional.empty(), "app.kubernetes.io/name=kvpool", null);
  }

  private static PoolObservation healthy(long generation) {
    return observation(generation, List.of(), Optional.of(ready(1)), Optional.of(ready(3)), Optional.of(MASTER), null);
  }

  private static Condition condition(KvCachePoolStatus status, String type) {
    return Conditions.find(status.getConditions(), type).orElseThrow();
  }

  @Test
  void newPoolWithoutObjectsIsPendingAndProgressing() {
    PoolStatusUpdate update = at(T0).aggregate(null, observation(1, List.of(), Optional.empty(), Optional.empty(),
        Optional.empty(), "no master pod is ready yet"));

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
    PoolStatusUpdate update = at(T0).aggregate(null, healthy(3));

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
    for (String type : List.of(READY, AVAILABLE)) {
      assertThat(condition(status, type).getStatus()).as(type).isEqualTo("True");
    }
    assertThat(condition(status, PROGRESSING).getStatus()).isEqualTo("False");
    assertThat(condition(status, DEGRADED).getStatus()).isEqualTo("False");
    assertThat(condition(status, READY).getObservedGeneration()).isEqualTo(3);
    assertThat(condition(status, READY).getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(update.events()).extracting(PoolEvent::reason).containsExactly(PoolEventReason.PoolReady);
  }

  @Test
  void unchangedConditionsKeepTheirTransitionTimeAndEmitNoEventAgain() {
    KvCachePoolStatus first = at(T0).aggregate(null, healthy(1)).status();

    PoolStatusUpdate second = at(T0.plusSeconds(60)).aggregate(first, healthy(1));

    assertThat(second.status()).isEqualTo(first);
    assertThat(condition(second.status(), READY).getLastTransitionTime()).isEqualTo("2026-01-01T10:00:00Z");
    assertThat(second.events()).isEmpty();
  }

  @Test
  void aChangedConditionGetsANewTransitionTime() {
    KvCachePoolStatus first = at(T0).aggregate(null, healthy(1)).status();

    KvCachePoolStatus second = at(T0.plusSeconds(60)).aggregate(first, observation(1, List.of(),
        Optional.of(ready(1)), Optional.of(new ReplicaState(3, 2, 3, true, true, "0.1.0")), Optional.of(MASTER), null))
        .status();

    assertThat(condition(second, READY).getStatus()).isEqualTo("False");
    assertThat(condition(second, READY).getReason()).isEqualTo("StorageNotReady");
    assertThat(condition(second, READY).getLastTransitionTime()).isEqualTo("2026-01-01T10:01:00Z");
    assertThat(condition(second, AVAILABLE).getStatus()).as("2 storage nodes still cover objectReplicas=2")
        .isEqualTo("True");
  }

  @Test
  void unreachableLeaderWithReadyMasterPodsIsDegradedOnceWithTheReason() {
    KvCachePoolStatus running = at(T0).aggregate(null, healthy(1)).status();
    PoolObservation unreachable = observation(1, List.of(), Optional.of(ready(1)), Optional.of(ready(3)),
        Optional.empty(), "master admin http://p-master.ns.svc:8080/status unreachable: ConnectException");

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
    assertThat(degraded.events()).extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.MasterUnreachable, PoolEventReason.PoolNotReady);
    assertThat(again.events()).isEmpty();

    PoolStatusUpdate recovered = at(T0.plusSeconds(30)).aggregate(again.status(), healthy(1));
    assertThat(recovered.status().getPhase()).isEqualTo(PoolPhase.Running);
    assertThat(recovered.events()).extracting(PoolEvent::reason)
        .containsExactly(PoolEventReason.Recovered, PoolEventReason.PoolReady);
  }

  @Test
  void invalidSpecIsDegradedAndKeepsTheLastValidTargetVersion() {
    KvCachePoolStatus running = at(T0).aggregate(null, healthy(1)).status();
    PoolObservation invalid = new PoolObservation(2, "0.2.0", 2, List.of("spec.image changed without version"),
        Optional.of(ready(1)), Optional.of(ready(3)), Optional.of(MASTER), null, Optional.empty(), "sel", null);

    PoolStatusUpdate update = at(T0.plusSeconds(5)).aggregate(running, invalid);

    KvCachePoolStatus status = update.status();
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
    assertThat(status.getObservedGeneration()).isEqualTo(2);
    assertThat(status.getTargetVersion()).isEqualTo("0.1.0");
    assertThat(condition(status, DEGRADED).getReason()).isEqualTo("InvalidSpec");
    assertThat(condition(status, DEGRADED).getMessage()).contains("spec.image changed without version")
        .contains("last valid state keeps running");
    assertThat(condition(status, AVAILABLE).getStatus()).as("the old pods still serve").isEqualTo("True");
    assertThat(status.getMessage()).contains("spec.image changed");
    assertThat(update.events()).extracting(PoolEvent::reason).contains(PoolEventReason.InvalidSpec);
  }

  @Test
  void invalidSpecBeforeAnythingRunsIsFailed() {
    PoolStatusUpdate update = at(T0).aggregate(null, observation(1, List.of("TransferEngine 'x' does not exist"),
        Optional.empty(), Optional.empty(), Optional.empty(), "no master pod is ready yet"));

    assertThat(update.status().getPhase()).isEqualTo(PoolPhase.Failed);
    assertThat(update.status().getTargetVersion()).isNull();
  }

  @Test
  void scalingStorageIsProgressingAndAnnouncedOnce() {
    KvCachePoolStatus running = at(T0).aggregate(null, healthy(1)).status();
    PoolObservation scaling = observation(2, List.of(), Optional.of(ready(1)),
        Optional.of(new ReplicaState(5, 3, 3, true, false, "0.1.0")), Optional.of(MASTER), null);

    PoolStatusUpdate update = at(T0.plusSeconds(5)).aggregate(running, scaling);

    assertThat(update.status().getStorage()).isEqualTo("3/5");
    assertThat(update.status().getPhase()).isEqualTo(PoolPhase.Running);
    assertThat(condition(update.status(), PROGRESSING).getStatus()).isEqualTo("True");
    assertThat(condition(update.status(), AVAILABLE).getStatus()).isEqualTo("True");
    assertThat(update.events()).extracting(PoolEvent::reason)
        .contains(PoolEventReason.StorageScaled, PoolEventReason.PoolNotReady);
  }

  @Test
  void podsLostAfterRunningAreDegraded() {
    KvCachePoolStatus running = at(T0).aggregate(null, healthy(1)).status();

    PoolStatusUpdate update = at(T0.plusSeconds(5)).aggregate(running, observation(1, List.of(),
        Optional.of(ready(1)), Optional.of(new ReplicaState(3, 1, 3, true, true, "0.1.0")), Optional.of(MASTER), null));

    assertThat(condition(update.status(), DEGRADED).getReason()).isEqualTo("ReplicasUnavailable");
    assertThat(condition(update.status(), AVAILABLE).getReason()).isEqualTo("TooFewStorageNodes");
    assertThat(update.status().getPhase()).isEqualTo(PoolPhase.Degraded);
  }

  @Test
  void versionRollingOutIsUpgrading() {
    KvCachePoolStatus running = at(T0).aggregate(null, healthy(1)).status();
    PoolObservation rolling = new PoolObservation(2, "0.2.0", 2, List.of(),
        Optional.of(new ReplicaState(1, 1, 0, false, true, "0.2.0")),
        Optional.of(new ReplicaState(3, 3, 1, false, true, "0.2.0")), Optional.of(MASTER), null, Optional.empty(),
        "sel", null);

    KvCachePoolStatus status = at(T0.plusSeconds(5)).aggregate(running, rolling).status();

    assertThat(status.getPhase()).isEqualTo(PoolPhase.Upgrading);
    assertThat(status.getCurrentVersion()).isEqualTo("0.1.0");
    assertThat(status.getTargetVersion()).isEqualTo("0.2.0");
    assertThat(condition(status, PROGRESSING).getReason()).isEqualTo("RollingOut");
  }

  @Test
  void leaderFallsBackToTheLabelledPodWhenStatusDoesNotNameIt() {
    MasterStatus anonymous = new MasterStatus("p", "LEADER", null, 1, "0.1.0", "1.0", 3, 3, 1L << 30, 0, 0);
    PoolObservation o = new PoolObservation(1, "0.1.0", 2, List.of(), Optional.of(ready(1)), Optional.of(ready(3)),
        Optional.of(anonymous), null, Optional.of("p-master-0"), "sel", null);

    assertThat(at(T0).aggregate(null, o).status().getLeader()).isEqualTo("p-master-0");
  }

  @Test
  void aFailedApplyIsDegradedUntilItSucceeds() {
    KvCachePoolStatus running = at(T0).aggregate(null, healthy(1)).status();
    PoolObservation failing = new PoolObservation(1, "0.1.0", 2, List.of(), Optional.of(ready(1)),
        Optional.of(ready(3)), Optional.of(MASTER), null, Optional.empty(), "sel",
        "KubernetesClientException: statefulsets \"p-master\" is forbidden");

    PoolStatusUpdate update = at(T0.plusSeconds(5)).aggregate(running, failing);

    assertThat(condition(update.status(), DEGRADED).getReason()).isEqualTo("ReconcileFailed");
    assertThat(condition(update.status(), DEGRADED).getMessage()).contains("forbidden");
    assertThat(condition(update.status(), READY).getReason()).isEqualTo("ReconcileFailed");
    assertThat(update.events()).extracting(PoolEvent::reason).contains(PoolEventReason.ReconcileFailed);
    assertThat(at(T0.plusSeconds(10)).aggregate(update.status(), healthy(1)).status().getPhase())
        .isEqualTo(PoolPhase.Running);
  }
}
