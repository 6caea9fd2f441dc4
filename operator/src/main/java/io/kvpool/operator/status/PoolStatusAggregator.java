package io.kvpool.operator.status;

import static io.kvpool.api.v1alpha1.KvCachePoolStatus.AVAILABLE;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.DEGRADED;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.PROGRESSING;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.READY;
import static io.kvpool.api.v1alpha1.KvCachePoolStatus.UPGRADE_BLOCKED;

import io.fabric8.kubernetes.api.model.Condition;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.NodeState;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.TransportUsage;
import io.kvpool.operator.autoscale.AutoscalingOutcome;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.Conditions;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolEventReason;
import io.kvpool.operator.common.StatusMessage;
import io.kvpool.operator.rollout.ReleaseGate;
import io.kvpool.operator.rollout.RolloutPlan;
import io.kvpool.operator.rollout.RolloutRound;
import io.kvpool.operator.transferengine.EnginePreflight;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Computes a pool's status from what is observed now; pure (the clock is injected), so every rule
 * is unit tested. No rule looks at the previous status except to keep a condition's
 * lastTransitionTime and to find the transitions that call for an Event, so a pool that never ran
 * cannot be shown as running and an operator restart changes nothing. Conditions:
 *
 * <ul>
 *   <li>Ready: the spec is valid, every master and storage pod is ready on the current template,
 *       the leader answers /status, serves, counts every storage node ALIVE and has heard from each
 *       lately (none is silent: frozen, overloaded or cut off before its node TTL).
 *   <li>Available: the pool serves: a serving leader and at least objectReplicas storage nodes that
 *       are ready and ALIVE in the leader's view.
 *   <li>Progressing: objects are being created, rolled or scaled.
 *   <li>Degraded: something is wrong that waiting alone will not fix: an invalid spec (the last
 *       valid state keeps running), objects that could not be applied, pods that cannot start, a
 *       leader that does not answer while master pods are ready, or storage nodes the leader
 *       declared dead.
 *   <li>UpgradeBlocked: the release gate refused spec.version (or a rollout was rolled back): the
 *       pool keeps running what it runs, with the reason.
 *   <li>DiskTierDegraded (only while the leader reports nodes with disk tiers): a node's disk tier
 *       is degraded; it names the node and the reason ({@link DiskTierHealth}).
 * </ul>
 *
 * While a rollout runs, Progressing follows it (its step, or why it is paused, timed out or
 * refused). Phase: Failed (invalid, nothing created), Degraded, Pending (no StatefulSets),
 * Upgrading (pods run another release than the one rendered), Running (Available), else Creating.
 * Figures read from the leader (leader, view, capacity, usage, objects) are cleared when it cannot
 * be read rather than shown stale. Every message is bounded.
 */
public final class PoolStatusAggregator {
  /** Silent storage nodes named in the Ready condition's message; the others are counted. */
  static final int MAX_SILENT_NAMED = 5;

  private final Clock clock;

  public PoolStatusAggregator(Clock clock) {
    this.clock = clock;
  }

  public PoolStatusUpdate aggregate(KvCachePoolStatus previous, PoolObservation observed) {
    KvCachePoolStatus prev = previous == null ? new KvCachePoolStatus() : previous;
    KvCachePoolStatus next = new KvCachePoolStatus();
    next.setObservedGeneration(observed.generation());
    next.setUpgrade(observed.rollout().map(RolloutRound.Result::status).orElse(prev.getUpgrade()));
    next.setStorageSelector(observed.storageSelector());
    next.setTargetVersion(observed.specValid() ? observed.specVersion() : prev.getTargetVersion());
    observed
        .masters()
        .ifPresent(
            m -> {
              next.setMasters(m.fraction());
              next.setMasterReadyReplicas(m.ready());
            });
    observed
        .storage()
        .ifPresent(
            s -> {
              next.setStorage(s.fraction());
              next.setStorageReadyReplicas(s.ready());
            });
    if (next.getStorageReadyReplicas() == null) {
      next.setStorageReadyReplicas(0);
    }
    next.setCurrentVersion(currentVersion(prev, observed));
    observed
        .master()
        .ifPresent(
            master -> {
              String pod = master.leader() == null ? null : master.leader().pod();
              // A master outside Kubernetes knows no pod name; the pod the leader labelled is the
              // next best answer.
              next.setLeader(pod == null || pod.isBlank() ? observed.labelledLeader() : pod);
              next.setViewNumber(master.view());
              next.setCapacity(ByteQuantity.display(master.capacityBytes()));
              next.setUsed(ByteQuantity.display(master.usedBytes()));
              next.setUsedRatio(
                  master.capacityBytes() == 0
                      ? 0.0
                      : Math.round(1000.0 * master.usedBytes() / master.capacityBytes()) / 1000.0);
              next.setObjectCount(master.objectCount());
              next.setTransport(transport(master));
              next.setCacheSignals(CacheSignalsView.of(master));
              next.setEvents(EventsView.of(master.events()));
            });
    if (!observed.failingPods().isEmpty()) {
      next.setFailingPods(
          List.copyOf(
              observed
                  .failingPods()
                  .subList(0, Math.min(PodFailures.MAX_LISTED, observed.failingPods().size()))));
    }

    Verdict ready = ready(observed);
    Verdict available = available(observed);
    Verdict progressing = progressing(observed);
    Verdict degraded = degraded(observed);
    Verdict blocked = upgradeBlocked(observed, prev);
    EnginePreflight.ConditionVerdict config = EnginePreflight.configValid(observed.preflight());
    Conditions conditions =
        new Conditions(prev.getConditions(), observed.generation(), clock.instant())
            .set(READY, ready.status, ready.reason, ready.message)
            .set(AVAILABLE, available.status, available.reason, available.message)
            .set(PROGRESSING, progressing.status, progressing.reason, progressing.message)
            .set(DEGRADED, degraded.status, degraded.reason, degraded.message)
            .set(UPGRADE_BLOCKED, blocked.status, blocked.reason, blocked.message)
            .set(EnginePreflight.CONFIG_VALID, config.status(), config.reason(), config.message());
    DiskTierHealth.of(observed.master())
        .ifPresent(
            d -> conditions.set(DiskTierHealth.CONDITION, d.status(), d.reason(), d.message()));
    next.setConditions(conditions.build());
    next.setPhase(phase(observed, available, degraded));
    next.setMessage(StatusMessage.bound(degraded.status ? degraded.message : ready.message));
    List<PoolEvent> events = events(prev, next);
    observed.rollout().ifPresent(r -> events.addAll(r.events()));
    // autoscaling decides only on a valid spec; otherwise its last status stays while it is on
    next.setAutoscaling(
        observed
            .autoscaling()
            .map(AutoscalingOutcome::status)
            .orElse(observed.specValid() ? null : prev.getAutoscaling()));
    observed.autoscaling().ifPresent(a -> events.addAll(a.events()));
    return new PoolStatusUpdate(next, events);
  }

  /**
   * The release all pods run: the one every pod records, else (no pod seen) the StatefulSets'
   * version once both are rolled out and ready; while pods disagree the last known one stays shown.
   */
  private static String currentVersion(KvCachePoolStatus prev, PoolObservation observed) {
    if (observed.podReleases().size() == 1) {
      return observed.podReleases().iterator().next();
    }
    if (observed.podReleases().isEmpty() && observed.deployed()) {
      ReplicaState masters = observed.masters().get();
      ReplicaState storage = observed.storage().get();
      if (masters.rolledOut()
          && storage.rolledOut()
          && masters.allReady()
          && storage.allReady()
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
      return Verdict.no(
          "MastersNotReady", masters.fraction() + " masters ready" + missing(o, "master", masters));
    }
    if (!storage.allReady()) {
      return Verdict.no(
          "StorageNotReady",
          storage.fraction() + " storage nodes ready" + missing(o, "storage", storage));
    }
    if (!masters.rolledOut() || !storage.rolledOut()) {
      return Verdict.no("RollingOut", "pods are being replaced with the current template");
    }
    if (o.master().isEmpty()) {
      return Verdict.no("MasterUnreachable", o.masterError());
    }
    MasterStatus master = o.master().get();
    if (!serving(master)) {
      return Verdict.no("LeaderNotServing", notServing(master));
    }
    if (master.aliveNodes() < storage.desired()) {
      return Verdict.no(
          "StorageNotRegistered",
          "the leader counts "
              + master.aliveNodes()
              + " of "
              + storage.desired()
              + " storage nodes alive");
    }
    List<MasterStatus.NodeStatus> silent = silentNodes(master);
    if (!silent.isEmpty()) {
      return Verdict.no("StorageNodesSilent", silence(silent));
    }
    return Verdict.yes(
        "AllReplicasReady",
        masters.fraction()
            + " masters and "
            + storage.fraction()
            + " storage nodes ready, "
            + master.aliveNodes()
            + " alive in view "
            + master.view());
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
    MasterStatus master = o.master().get();
    if (!serving(master)) {
      return Verdict.no("LeaderNotServing", notServing(master));
    }
    int usable = Math.min(storage.ready(), master.aliveNodes());
    if (usable < o.objectReplicas()) {
      return Verdict.no(
          "TooFewStorageNodes",
          storage.ready()
              + " storage nodes ready and "
              + master.aliveNodes()
              + " alive in the leader's view; objects need "
              + o.objectReplicas());
    }
    return Verdict.yes(
        "MinimumReplicasAvailable",
        "the leader serves and " + usable + " storage nodes are ready and alive");
  }

  private static Verdict progressing(PoolObservation o) {
    if (!o.deployed()) {
      return Verdict.yes("Creating", "creating the pool's objects");
    }
    Verdict rollout = o.rollout().map(PoolStatusAggregator::rollout).orElse(null);
    if (rollout != null) {
      return rollout;
    }
    ReplicaState masters = o.masters().get();
    ReplicaState storage = o.storage().get();
    if (!masters.rolledOut() || !storage.rolledOut()) {
      return Verdict.yes(
          "RollingOut",
          "masters "
              + masters.updated()
              + "/"
              + masters.desired()
              + " and storage "
              + storage.updated()
              + "/"
              + storage.desired()
              + " on the current template"
              + missing(o, "master", masters)
              + missing(o, "storage", storage));
    }
    if (!masters.allReady() || !storage.allReady()) {
      return Verdict.yes(
          "WaitingForPods",
          masters.fraction()
              + " masters and "
              + storage.fraction()
              + " storage nodes ready"
              + missing(o, "master", masters)
              + missing(o, "storage", storage));
    }
    return Verdict.no("RolloutComplete", "all pods run the current template");
  }

  /** Progressing while a rollout runs: its step and progress, or why it does not move. */
  private static Verdict rollout(RolloutRound.Result r) {
    if (r.gate().verdict() == ReleaseGate.Verdict.CHECKING) {
      return Verdict.yes(
          "CheckingImage", r.gate().message() + (r.failure() == null ? "" : "; " + r.failure()));
    }
    if (r.plan() == null
        || r.plan().action() instanceof RolloutPlan.Done
        || r.plan().phase() == RolloutPhase.Completed) {
      return null; // no rollout: the StatefulSets' own progress
    }
    String progress = r.plan().updated() + "/" + r.plan().total() + " pods updated: ";
    String step = r.plan().action().describe();
    RolloutPlan.Action a = r.plan().action();
    if (a instanceof RolloutPlan.TimedOut) {
      return r.status() != null && r.status().getPhase() == RolloutPhase.RollingBack
          ? Verdict.yes("RollingBack", progress + step + "; rolling back")
          : Verdict.no(
              "StepTimedOut",
              progress + step + "; paused until its pod is ready (onFailure: Pause)");
    }
    if (a instanceof RolloutPlan.Refused) {
      return Verdict.no("RolloutRefused", progress + step);
    }
    if (r.plan().phase() == RolloutPhase.Paused) {
      return Verdict.no("RolloutPaused", progress + step);
    }
    if (r.failure() != null) {
      return Verdict.yes("RollingOut", progress + step + "; last attempt failed: " + r.failure());
    }
    boolean back = r.gate().verdict() == ReleaseGate.Verdict.ROLLING_BACK;
    return Verdict.yes(back ? "RollingBack" : "RollingOut", progress + step);
  }

  /**
   * UpgradeBlocked from the release gate; without a rollout decision (invalid spec, failed apply)
   * the previous verdict stands.
   */
  private static Verdict upgradeBlocked(PoolObservation o, KvCachePoolStatus prev) {
    if (o.rollout().isEmpty()) {
      return Conditions.find(prev.getConditions(), UPGRADE_BLOCKED)
          .map(
              c ->
                  new Verdict(Conditions.TRUE.equals(c.getStatus()), c.getReason(), c.getMessage()))
          .orElse(Verdict.no("NoRelease", "no release change has been checked"));
    }
    ReleaseGate.Decision gate = o.rollout().get().gate();
    if (gate.blocked()) {
      return Verdict.yes(gate.reason(), gate.message());
    }
    return Verdict.no("AsExpected", gate.message());
  }

  private static Verdict degraded(PoolObservation o) {
    if (!o.specValid()) {
      return Verdict.yes(
          "InvalidSpec",
          withOutcome(
              problems(o),
              o.deployed()
                  ? " (the last valid state keeps running)"
                  : " (nothing is created until the spec is fixed)"));
    }
    if (o.reconcileError() != null) {
      return Verdict.yes("ReconcileFailed", withOutcome(o.reconcileError(), " (retrying)"));
    }
    if (!o.failingPods().isEmpty()) {
      return Verdict.yes("PodsFailing", PodFailures.summary(o.failingPods()));
    }
    if (o.deployed()
        && o.masters().get().ready() > 0
        && o.master().isEmpty()
        && !replacingMaster(o)) {
      return Verdict.yes("MasterUnreachable", o.masterError());
    }
    if (o.deployed() && o.master().isPresent()) {
      List<String> dead = deadStorageNodes(o);
      if (!dead.isEmpty()) {
        return Verdict.yes(
            "ReplicasUnavailable",
            "the leader declared storage node(s) "
                + String.join(", ", dead)
                + " dead; their replicas are being repaired from the survivors");
      }
    }
    return Verdict.no("AsExpected", "no problem detected");
  }

  /**
   * Pods the StatefulSet controller cannot create never show up as failing pods; say where to look.
   * Observed now: the controller has seen the spec and counts fewer pods than desired.
   */
  private static String missing(PoolObservation o, String component, ReplicaState state) {
    if (!state.podsMissing()) {
      return "";
    }
    return "; only "
        + state.created()
        + " of "
        + state.desired()
        + " "
        + component
        + " pods exist: 'kubectl describe"
        + " statefulset "
        + o.poolName()
        + "-"
        + component
        + "' shows why the others are not created (e.g. the"
        + " namespace's Pod Security level or a quota)";
  }

  /**
   * Whether a rollout step is replacing a master (or handing leadership over) right now: the leader
   * is then expected to be out of reach for a while, which Ready and Progressing say; it degrades
   * the pool only once the step times out.
   */
  private static boolean replacingMaster(PoolObservation o) {
    return o.rollout()
        .map(RolloutRound.Result::plan)
        .map(RolloutPlan::action)
        .filter(a -> !(a instanceof RolloutPlan.TimedOut) && !(a instanceof RolloutPlan.Done))
        .map(RolloutPlan.Action::pod)
        .filter(pod -> pod.startsWith(o.poolName() + "-master-"))
        .isPresent();
  }

  /** The serving nodes the leader has not heard from lately, by id. */
  private static List<MasterStatus.NodeStatus> silentNodes(MasterStatus master) {
    return master.nodes().stream()
        .filter(MasterStatus.NodeStatus::silent)
        .sorted(Comparator.comparing(MasterStatus.NodeStatus::id))
        .toList();
  }

  /** What silent nodes mean, naming at most {@link #MAX_SILENT_NAMED} of them. */
  private static String silence(List<MasterStatus.NodeStatus> silent) {
    List<String> named = new ArrayList<>();
    for (MasterStatus.NodeStatus n : silent.subList(0, Math.min(MAX_SILENT_NAMED, silent.size()))) {
      named.add(
          String.format(
              Locale.ROOT,
              "%s (last heartbeat %.1f s ago)",
              n.id(),
              n.lastHeartbeatMillisAgo() / 1e3));
    }
    int more = silent.size() - named.size();
    return "the leader has not heard from storage node"
        + (silent.size() == 1 ? " " : "s ")
        + String.join(", ", named)
        + (more > 0 ? " and " + more + " more" : "")
        + ", frozen, overloaded or cut off: it places new values on the other nodes and declares a"
        + " node dead at its node TTL unless it is heard from again";
  }

  /** Storage nodes of current pods (ordinal below the desired count) the leader lists as DEAD. */
  private static List<String> deadStorageNodes(PoolObservation o) {
    String prefix = o.poolName() + "-storage-";
    int desired = o.storage().get().desired();
    List<String> dead = new ArrayList<>();
    for (MasterStatus.NodeStatus node : o.master().get().nodes()) {
      if (node.nodeState() == NodeState.DEAD && node.id() != null && node.id().startsWith(prefix)) {
        String ordinal = node.id().substring(prefix.length());
        if (ordinal.matches("[0-9]{1,6}") && Integer.parseInt(ordinal) < desired) {
          dead.add(node.id());
        }
      }
    }
    return dead;
  }

  private static PoolPhase phase(PoolObservation o, Verdict available, Verdict degraded) {
    if (!o.specValid() && !o.deployed()) {
      return PoolPhase.Failed;
    }
    if (degraded.status) {
      return PoolPhase.Degraded;
    }
    if (!o.deployed()) {
      return PoolPhase.Pending;
    }
    String rendered = o.rollout().map(r -> r.gate().render().version()).orElse(o.specVersion());
    if (o.podReleases().stream().anyMatch(release -> !release.equals(rendered))) {
      return PoolPhase.Upgrading;
    }
    return available.status ? PoolPhase.Running : PoolPhase.Creating;
  }

  private static boolean serving(MasterStatus master) {
    return master.serving();
  }

  private static String notServing(MasterStatus master) {
    return "the master behind the leader address is "
        + master.role()
        + " in state "
        + master.state()
        + (master.recovery() != null && master.recovery().recovering()
            ? " (" + master.recovery().describe() + ")"
            : "");
  }

  /**
   * One event per transition: compares with the persisted previous status, so a restart re-emits
   * nothing.
   */
  private static List<PoolEvent> events(KvCachePoolStatus prev, KvCachePoolStatus next) {
    List<PoolEvent> events = new ArrayList<>();
    Optional<Condition> oldDegraded = Conditions.find(prev.getConditions(), DEGRADED);
    Condition newDegraded = Conditions.find(next.getConditions(), DEGRADED).orElseThrow();
    boolean degradedNow = Conditions.TRUE.equals(newDegraded.getStatus());
    boolean degradedBefore =
        oldDegraded.map(c -> Conditions.TRUE.equals(c.getStatus())).orElse(false);
    boolean degradedReasonChanged =
        !Objects.equals(
            oldDegraded.map(Condition::getReason).orElse(null), newDegraded.getReason());
    if (degradedNow && (!degradedBefore || degradedReasonChanged)) {
      events.add(new PoolEvent(reasonOf(newDegraded.getReason()), newDegraded.getMessage()));
    } else if (!degradedNow && degradedBefore) {
      events.add(
          new PoolEvent(
              PoolEventReason.Recovered,
              "no longer degraded (was: "
                  + oldDegraded.get().getReason()
                  + "); phase "
                  + next.getPhase()));
    }
    boolean readyBefore = Conditions.isTrue(prev.getConditions(), READY);
    boolean readyNow = Conditions.isTrue(next.getConditions(), READY);
    if (readyNow && !readyBefore) {
      events.add(new PoolEvent(PoolEventReason.PoolReady, next.getMessage()));
    } else if (!readyNow && readyBefore) {
      Condition readyCondition = Conditions.find(next.getConditions(), READY).orElseThrow();
      events.add(
          new PoolEvent(
              PoolEventReason.PoolNotReady,
              readyCondition.getReason() + ": " + readyCondition.getMessage()));
    }
    Condition newBlocked = Conditions.find(next.getConditions(), UPGRADE_BLOCKED).orElseThrow();
    Optional<Condition> oldBlocked = Conditions.find(prev.getConditions(), UPGRADE_BLOCKED);
    boolean blockedBefore =
        oldBlocked.map(c -> Conditions.TRUE.equals(c.getStatus())).orElse(false);
    if (Conditions.TRUE.equals(newBlocked.getStatus())
        && (!blockedBefore
            || !Objects.equals(oldBlocked.get().getReason(), newBlocked.getReason()))) {
      events.add(
          new PoolEvent(
              PoolEventReason.UpgradeBlocked,
              newBlocked.getReason() + ": " + newBlocked.getMessage()));
    }
    String oldStorageTarget = target(prev.getStorage());
    String newStorageTarget = target(next.getStorage());
    if (oldStorageTarget != null
        && newStorageTarget != null
        && !oldStorageTarget.equals(newStorageTarget)) {
      events.add(
          new PoolEvent(
              PoolEventReason.StorageScaled,
              "storage nodes scaled from " + oldStorageTarget + " to " + newStorageTarget));
    }
    if (prev.getLeader() != null
        && next.getLeader() != null
        && !prev.getLeader().equals(next.getLeader())) {
      events.add(
          new PoolEvent(
              PoolEventReason.LeaderChanged,
              "leader "
                  + prev.getLeader()
                  + " -> "
                  + next.getLeader()
                  + " (view "
                  + next.getViewNumber()
                  + ")"));
    }
    return events;
  }

  private static PoolEventReason reasonOf(String degradedReason) {
    return switch (degradedReason) {
      case "InvalidSpec" -> PoolEventReason.InvalidSpec;
      case "MasterUnreachable" -> PoolEventReason.MasterUnreachable;
      case "ReconcileFailed" -> PoolEventReason.ReconcileFailed;
      case "PodsFailing" -> PoolEventReason.PodsFailing;
      default -> PoolEventReason.ReplicasUnavailable;
    };
  }

  private static String target(String fraction) {
    return fraction == null ? null : fraction.substring(fraction.indexOf('/') + 1);
  }

  /** The outcome stays readable however long the cause: the cause is shortened, not the outcome. */
  private static String withOutcome(String cause, String outcome) {
    return StatusMessage.bound(cause, StatusMessage.MAX_LENGTH - outcome.length()) + outcome;
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

  /**
   * The transport of the nodes the leader counts ALIVE and the devices they opened (node:device).
   */
  static TransportUsage transport(MasterStatus master) {
    List<MasterStatus.NodeStatus> alive =
        master.nodes().stream().filter(n -> n.nodeState() == NodeState.ALIVE).toList();
    if (alive.isEmpty()) {
      return null;
    }
    TransportUsage usage = new TransportUsage();
    usage.setProtocol(
        alive.stream()
            .map(MasterStatus.NodeStatus::transport)
            .filter(Objects::nonNull)
            .distinct()
            .sorted()
            .collect(java.util.stream.Collectors.joining(",")));
    usage.setStorageNodes(alive.size());
    List<String> devices = new ArrayList<>();
    alive.forEach(n -> n.devices().forEach(d -> devices.add(n.id() + ":" + d)));
    devices.sort(null);
    usage.setDevices(devices.isEmpty() ? null : devices);
    return usage;
  }
}
