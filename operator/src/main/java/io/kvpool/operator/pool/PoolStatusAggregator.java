package io.kvpool.operator.pool;

import static io.kvpool.api.v1alpha1.KvCachePoolStatus.AVAILABLE;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.DEGRADED;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.PROGRESSING;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.READY;

import io.fabric8.kubernetes.api.model.Condition;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.Conditions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Computes a pool's status from what was observed; pure (the clock is injected), so every rule is unit
 * tested. Conditions:
 * <ul>
 *   <li>Ready: the spec is valid, every master and storage pod is ready on the current template, and the
 *   leader answers /status.</li>
 *   <li>Available: the pool serves: a reachable leader and at least objectReplicas ready storage nodes.</li>
 *   <li>Progressing: objects are being created, rolled or scaled.</li>
 *   <li>Degraded: something is wrong that waiting alone will not fix: an invalid spec (the last valid state
 *   keeps running), objects that could not be applied, a leader that does not answer while master pods
 *   are ready, or pods lost after the pool was running.</li>
 * </ul>
 * Figures read from the leader (leader, view, capacity, usage, objects) are cleared when it cannot be
 * read rather than shown stale.
 */
public final class PoolStatusAggregator {
  private final Clock clock;

  public PoolStatusAggregator(Clock clock) {
    this.clock = clock;
  }

  public PoolStatusUpdate aggregate(KvCachePoolStatus previous, PoolObservation observed) {
    KvCachePoolStatus prev = previous == null ? new KvCachePoolStatus() : previous;
    KvCachePoolStatus next = new KvCachePoolStatus();
    next.setObservedGeneration(observed.generation());
    next.setUpgrade(prev.getUpgrade());
    next.setStorageSelector(observed.storageSelector());
    next.setTargetVersion(observed.specValid() ? observed.specVersion() : prev.getTargetVersion());
    observed.masters().ifPresent(m -> {
      next.setMasters(m.fraction());
      next.setMasterReadyReplicas(m.ready());
    });
    observed.storage().ifPresent(s -> {
      next.setStorage(s.fraction());
      next.setStorageReadyReplicas(s.ready());
    });
    if (next.getStorageReadyReplicas() == null) {
      next.setStorageReadyReplicas(0);
    }
    next.setCurrentVersion(currentVersion(prev, observed));
    observed.master().ifPresent(master -> {
      next.setLeader(master.leader() != null ? master.leader() : observed.leaderPod().orElse(null));
      next.setViewNumber(master.viewNumber());
      next.setCapacity(ByteQuantity.display(master.capacityBytes()));
      next.setUsed(ByteQuantity.display(master.usedBytes()));
      next.setUsedRatio(master.capacityBytes() == 0 ? 0.0
          : Math.round(1000.0 * master.usedBytes() / master.capacityBytes()) / 1000.0);
      next.setObjectCount(master.objectCount());
    });

    Verdict ready = ready(observed);
    Verdict available = available(observed);
    Verdict progressing = progressing(observed);
    Verdict degraded = degraded(prev, observed);
    next.setConditions(new Conditions(prev.getConditions(), observed.generation(), clock.instant())
        .set(READY, ready.status, ready.reason, ready.message)
        .set(AVAILABLE, available.status, available.reason, available.message)
        .set(PROGRESSING, progressing.status, progressing.reason, progressing.message)
        .set(DEGRADED, degraded.status, degraded.reason, degraded.message)
        .build());
    next.setPhase(phase(prev, next, observed, ready, degraded));
    next.setMessage(degraded.status ? degraded.message : ready.message);
    return new PoolStatusUpdate(next, events(prev, next, observed));
  }

  /** The release all pods run: the StatefulSets' version once both are fully rolled out and ready. */
  private static String currentVersion(KvCachePoolStatus prev, PoolObservation observed) {
    if (observed.deployed()) {
      ReplicaState masters = observed.masters().get();
      ReplicaState storage = observed.storage().get();
      if (masters.rolledOut() && storage.rolledOut() && masters.allReady() && storage.allReady()
          && Objects.equals(masters.version(), storage.version())) {
        return masters.version();
      }
    }
    return prev.getCurrentVersion();
  }

  private static Verdict ready(PoolObservation o) {
    if (!o.specValid()) {
      return Verdict.no("InvalidSpec", problems(o));
    }
    if (o.reconcileError() != null) {
      return Verdict.no("ReconcileFailed", o.reconcileError());
    }
    if (!o.deployed()) {
      return Verdict.no("Creating", "creating the master and storage StatefulSets");
    }
    ReplicaState masters = o.masters().get();
    ReplicaState storage = o.storage().get();
    if (!masters.allReady()) {
      return Verdict.no("MastersNotReady", masters.fraction() + " masters ready");
    }
    if (!storage.allReady()) {
      return Verdict.no("StorageNotReady", storage.fraction() + " storage nodes ready");
    }
    if (!masters.rolledOut() || !storage.rolledOut()) {
      return Verdict.no("RollingOut", "pods are being replaced with the current template");
    }
    if (o.master().isEmpty()) {
      return Verdict.no("MasterUnreachable", o.masterError());
    }
    return Verdict.yes("AllReplicasReady", masters.fraction() + " masters and " + storage.fraction()
        + " storage nodes ready; view " + o.master().get().viewNumber());
  }

  private static Verdict available(PoolObservation o) {
    if (!o.deployed()) {
      return Verdict.no("Creating", "no master or storage StatefulSet yet");
    }
    ReplicaState masters = o.masters().get();
    ReplicaState storage = o.storage().get();
    if (masters.ready() < 1) {
      return Verdict.no("NoMasterReady", "no master is ready");
    }
    if (o.master().isEmpty()) {
      return Verdict.no("MasterUnreachable", o.masterError());
    }
    if (storage.ready() < o.objectReplicas()) {
      return Verdict.no("TooFewStorageNodes", storage.ready() + " storage nodes ready, objects need "
          + o.objectReplicas() + " replicas");
    }
    return Verdict.yes("MinimumReplicasAvailable", "leader answers and " + storage.ready()
        + " storage nodes are ready");
  }

  private static Verdict progressing(PoolObservation o) {
    if (!o.deployed()) {
      return Verdict.yes("Creating", "creating the pool's objects");
    }
    ReplicaState masters = o.masters().get();
    ReplicaState storage = o.storage().get();
    if (!masters.rolledOut() || !storage.rolledOut()) {
      return Verdict.yes("RollingOut", "masters " + masters.updated() + "/" + masters.desired() + " and storage "
          + storage.updated() + "/" + storage.desired() + " on the current template");
    }
    if (!masters.allReady() || !storage.allReady()) {
      return Verdict.yes("WaitingForPods", masters.fraction() + " masters and " + storage.fraction()
          + " storage nodes ready");
    }
    return Verdict.no("RolloutComplete", "all pods run the current template");
  }

  private static Verdict degraded(KvCachePoolStatus prev, PoolObservation o) {
    if (!o.specValid()) {
      return Verdict.yes("InvalidSpec", problems(o) + (o.deployed() ? " (the last valid state keeps running)"
          : " (nothing is created until the spec is fixed)"));
    }
    if (o.reconcileError() != null) {
      return Verdict.yes("ReconcileFailed", o.reconcileError() + " (retrying)");
    }
    if (o.deployed()) {
      ReplicaState masters = o.masters().get();
      ReplicaState storage = o.storage().get();
      if (masters.ready() > 0 && o.master().isEmpty()) {
        return Verdict.yes("MasterUnreachable", o.masterError());
      }
      boolean wasRunning = prev.getPhase() == PoolPhase.Running || prev.getPhase() == PoolPhase.Degraded;
      boolean settled = masters.rolledOut() && storage.rolledOut();
      if (wasRunning && settled && (!masters.allReady() || !storage.allReady())) {
        return Verdict.yes("ReplicasUnavailable", masters.fraction() + " masters and " + storage.fraction()
            + " storage nodes ready");
      }
    }
    return Verdict.no("AsExpected", "no problem detected");
  }

  private static PoolPhase phase(KvCachePoolStatus prev, KvCachePoolStatus next, PoolObservation o,
      Verdict ready, Verdict degraded) {
    if (!o.specValid() && !o.deployed()) {
      return PoolPhase.Failed;
    }
    if (degraded.status) {
      return PoolPhase.Degraded;
    }
    if (!o.deployed()) {
      return PoolPhase.Pending;
    }
    if (ready.status) {
      return PoolPhase.Running;
    }
    if (next.getCurrentVersion() != null && !next.getCurrentVersion().equals(next.getTargetVersion())) {
      return PoolPhase.Upgrading;
    }
    boolean ranBefore = prev.getPhase() == PoolPhase.Running || prev.getPhase() == PoolPhase.Degraded
        || prev.getPhase() == PoolPhase.Upgrading;
    return ranBefore ? PoolPhase.Running : PoolPhase.Creating;
  }

  /** One event per transition: compares with the persisted previous status, so a restart re-emits nothing. */
  private static List<PoolEvent> events(KvCachePoolStatus prev, KvCachePoolStatus next, PoolObservation o) {
    List<PoolEvent> events = new ArrayList<>();
    Optional<Condition> oldDegraded = Conditions.find(prev.getConditions(), DEGRADED);
    Condition newDegraded = Conditions.find(next.getConditions(), DEGRADED).orElseThrow();
    boolean degradedNow = Conditions.TRUE.equals(newDegraded.getStatus());
    boolean degradedBefore = oldDegraded.map(c -> Conditions.TRUE.equals(c.getStatus())).orElse(false);
    boolean degradedReasonChanged = !Objects.equals(oldDegraded.map(Condition::getReason).orElse(null),
        newDegraded.getReason());
    if (degradedNow && (!degradedBefore || degradedReasonChanged)) {
      events.add(new PoolEvent(reasonOf(newDegraded.getReason()), newDegraded.getMessage()));
    } else if (!degradedNow && degradedBefore) {
      events.add(new PoolEvent(PoolEventReason.Recovered, "no longer degraded (was: "
          + oldDegraded.get().getReason() + ")"));
    }
    boolean readyBefore = Conditions.isTrue(prev.getConditions(), READY);
    boolean readyNow = Conditions.isTrue(next.getConditions(), READY);
    if (readyNow && !readyBefore) {
      events.add(new PoolEvent(PoolEventReason.PoolReady, next.getMessage()));
    } else if (!readyNow && readyBefore) {
      Condition readyCondition = Conditions.find(next.getConditions(), READY).orElseThrow();
      events.add(new PoolEvent(PoolEventReason.PoolNotReady, readyCondition.getReason() + ": "
          + readyCondition.getMessage()));
    }
    String oldStorageTarget = target(prev.getStorage());
    String newStorageTarget = target(next.getStorage());
    if (oldStorageTarget != null && newStorageTarget != null && !oldStorageTarget.equals(newStorageTarget)) {
      events.add(new PoolEvent(PoolEventReason.StorageScaled, "storage nodes scaled from " + oldStorageTarget
          + " to " + newStorageTarget));
    }
    if (prev.getLeader() != null && next.getLeader() != null && !prev.getLeader().equals(next.getLeader())) {
      events.add(new PoolEvent(PoolEventReason.LeaderChanged, "leader " + prev.getLeader() + " -> "
          + next.getLeader() + " (view " + next.getViewNumber() + ")"));
    }
    return events;
  }

  private static PoolEventReason reasonOf(String degradedReason) {
    return switch (degradedReason) {
      case "InvalidSpec" -> PoolEventReason.InvalidSpec;
      case "MasterUnreachable" -> PoolEventReason.MasterUnreachable;
      case "ReconcileFailed" -> PoolEventReason.ReconcileFailed;
      default -> PoolEventReason.ReplicasUnavailable;
    };
  }

  private static String target(String fraction) {
    return fraction == null ? null : fraction.substring(fraction.indexOf('/') + 1);
  }

  private static String problems(PoolObservation o) {
    return String.join("; ", o.specProblems());
  }

  private record Verdict(boolean status, String reason, String message) {
    static Verdict yes(String reason, String message) {
      return new Verdict(true, reason, message);
    }

    static Verdict no(String reason, String message) {
      return new Verdict(false, reason, message);
    }
  }
}
