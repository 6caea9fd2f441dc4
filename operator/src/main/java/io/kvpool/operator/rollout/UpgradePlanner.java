package io.kvpool.operator.rollout;

import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.NodeState;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.RolloutStep;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.rollout.RolloutPlan.Action;
import io.kvpool.operator.rollout.RolloutPlan.StepKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The next safe step of a rollout (an upgrade, a pod template change, a scale-down), from what is
 * observed now: pure, so that an operator restarted mid-rollout takes up the same step, and every
 * rule is unit tested. Rules, in order (after Strimzi's KafkaRoller and the Solr operator's
 * OnDelete restarts):
 *
 * <ol>
 *   <li>Paused: nothing.
 *   <li>A step under way is waited for: a pod stopping, a pod the StatefulSet has yet to create, a
 *       pod on the rendered template that is not ready yet; past {@code stepTimeout} it has timed
 *       out.
 *   <li>Scale-down: surplus storage pods, highest ordinal first: drained at the leader (refused
 *       when their bytes do not fit on the remaining nodes), then marked so that the StatefulSet
 *       shrinks below them, one at a time.
 *   <li>A pod on an outdated template that is not ready is replaced first: that step is the repair.
 *   <li>No other step starts while the pool is unhealthy: the leader must serve, every pod be
 *       ready, every storage node ALIVE in its view and no object wait for a copy.
 *   <li>Storage pods, highest ordinal first: a warm restart where the pod and the template keep
 *       memory files and both images write the same inventory format; else a drain first, and the
 *       pod is replaced once the leader moved its replicas away.
 *   <li>Standby masters, then the leader: it steps down, an updated standby leads (and finishes
 *       lease recovery before anything else happens), then the old leader is replaced as a standby.
 * </ol>
 */
public final class UpgradePlanner {
  /** A step-down that did not move leadership is asked for again after this. */
  static final Duration STEP_DOWN_RETRY = Duration.ofSeconds(20);

  private UpgradePlanner() {}

  public static RolloutPlan plan(RolloutObservation o) {
    int total = o.masterReplicas() + o.storageDesired();
    int updated =
        updated(o.masters(), o.masterTemplate(), o.masterReplicas())
            + updated(o.storage(), o.storageTemplate(), o.storageDesired());
    Next next = next(o);
    return new RolloutPlan(next.phase, next.action, updated, total);
  }

  private record Next(RolloutPhase phase, Action action) {}

  private static Next next(RolloutObservation o) {
    if (o.masterTemplate() == null || o.storageTemplate() == null) {
      return new Next(
          RolloutPhase.Completed, new RolloutPlan.Wait(null, "waiting for the StatefulSets"));
    }
    boolean active = active(o);
    if (o.policy().paused() && active) {
      return new Next(
          RolloutPhase.Paused, new RolloutPlan.Wait(null, "held by spec.upgrade.paused"));
    }
    Next waiting = stepUnderWay(o, active);
    if (waiting != null) {
      return waiting;
    }
    Next scaleDown = scaleDown(o);
    if (scaleDown != null) {
      return scaleDown;
    }
    Next storage = storage(o);
    if (storage != null) {
      return storage;
    }
    Next masters = masters(o);
    if (masters != null) {
      return masters;
    }
    return new Next(
        RolloutPhase.Completed,
        new RolloutPlan.Done(
            "all "
                + (o.masterReplicas() + o.storageDesired())
                + " pods run release "
                + o.release()
                + " on the current templates"));
  }

  /**
   * Whether pods are to be replaced or removed (else the pool is only being created or healing by
   * itself).
   */
  static boolean active(RolloutObservation o) {
    if (o.step().isPresent()) {
      return true;
    }
    boolean outdated =
        current(o.masters(), o.masterReplicas()).stream()
                .anyMatch(p -> outdated(p, o.masterTemplate()))
            || current(o.storage(), o.storageDesired()).stream()
                .anyMatch(p -> outdated(p, o.storageTemplate()));
    return outdated || o.storage().stream().anyMatch(p -> p.ordinal() >= o.storageDesired());
  }

  // ---- 2. a step under way ----

  private static Next stepUnderWay(RolloutObservation o, boolean active) {
    List<PodView> all = new ArrayList<>(o.storage());
    all.addAll(o.masters());
    for (PodView p : all) {
      if (p.terminating()) {
        return waitOrTimeout(
            o,
            active,
            phaseOf(o, p),
            p.name(),
            stepStart(o, p.name()),
            "waiting for pod " + p.name() + " to stop");
      }
    }
    for (int i = 0; i < o.masterReplicas(); i++) {
      if (find(o.masters(), i).isEmpty()) {
        String name = o.pool() + "-master-" + i;
        return waitOrTimeout(
            o,
            active,
            RolloutPhase.StandbyMasters,
            name,
            stepStart(o, name),
            "waiting for the StatefulSet to create pod " + name);
      }
    }
    for (int i = 0; i < Math.min(o.storageDesired(), o.storageRendered()); i++) {
      if (find(o.storage(), i).isEmpty()) {
        String name = o.pool() + "-storage-" + i;
        return waitOrTimeout(
            o,
            active,
            RolloutPhase.StorageNodes,
            name,
            stepStart(o, name),
            "waiting for the StatefulSet to create pod " + name);
      }
    }
    for (PodView p : current(o.storage(), o.storageDesired())) {
      if (!outdated(p, o.storageTemplate()) && !p.ready()) {
        return waitOrTimeout(
            o,
            active,
            RolloutPhase.StorageNodes,
            p.name(),
            p.createdAt(),
            "waiting for "
                + p.name()
                + " to register with the leader and be ready on release "
                + p.release());
      }
    }
    for (PodView p : current(o.masters(), o.masterReplicas())) {
      if (!outdated(p, o.masterTemplate()) && !p.ready()) {
        return waitOrTimeout(
            o,
            active,
            phaseOf(o, p),
            p.name(),
            p.createdAt(),
            "waiting for master " + p.name() + " to be ready on release " + p.release());
      }
    }
    return null;
  }

  private static Next waitOrTimeout(
      RolloutObservation o,
      boolean active,
      RolloutPhase phase,
      String pod,
      Instant since,
      String what) {
    if (active
        && since != null
        && Duration.between(since, o.now()).compareTo(o.policy().stepTimeout()) > 0) {
      return new Next(
          RolloutPhase.TimedOut,
          new RolloutPlan.TimedOut(
              pod,
              what
                  + ": not done within the step"
                  + " timeout of "
                  + human(o.policy().stepTimeout())));
    }
    return new Next(active ? phase : RolloutPhase.Completed, new RolloutPlan.Wait(pod, what));
  }

  // ---- 3. scale-down ----

  private static Next scaleDown(RolloutObservation o) {
    List<PodView> surplus =
        o.storage().stream()
            .filter(p -> p.ordinal() >= o.storageDesired())
            .sorted(Comparator.comparingInt(PodView::ordinal).reversed())
            .toList();
    if (surplus.isEmpty()) {
      return null;
    }
    PodView p = surplus.get(0);
    RolloutPhase phase = RolloutPhase.ScalingDown;
    if (p.drained()) {
      return new Next(
          phase, new RolloutPlan.Wait(p.name(), "removing drained storage pod " + p.name()));
    }
    String leaderProblem = leaderProblem(o);
    if (leaderProblem != null) {
      return new Next(
          phase,
          new RolloutPlan.Wait(
              p.name(), leaderProblem + "; " + p.name() + " is drained once" + " it serves"));
    }
    Optional<MasterStatus.NodeStatus> node = o.node(p.name());
    if (node.isEmpty() || node.get().nodeState() == NodeState.DEAD) {
      return new Next(
          phase,
          new RolloutPlan.MarkDrained(
              p.name(), p.name() + " holds no replica the leader" + " counts: it can go"));
    }
    if (node.get().nodeState() == NodeState.DRAINING) {
      if (node.get().replicas() == 0) {
        return new Next(
            phase, new RolloutPlan.MarkDrained(p.name(), p.name() + " is drained: removing it"));
      }
      return waitOrTimeout(
          o,
          true,
          phase,
          p.name(),
          stepStart(o, p.name()),
          "draining " + p.name() + ": " + node.get().replicas() + " replicas left to copy");
    }
    String health = healthProblem(o, p.name());
    if (health != null) {
      return new Next(
          phase,
          new RolloutPlan.Wait(
              p.name(), health + "; " + p.name() + " is drained once the pool" + " is healthy"));
    }
    String room = roomProblem(o, node.get(), current(o.storage(), o.storageDesired()));
    if (room != null) {
      return new Next(
          phase,
          new RolloutPlan.Refused(
              p.name(),
              "cannot remove "
                  + p.name()
                  + ": "
                  + room
                  + "; free space or keep spec.storage.replicas at "
                  + (p.ordinal() + 1)));
    }
    return new Next(
        phase,
        new RolloutPlan.Drain(
            p.name(),
            "draining "
                + p.name()
                + " to scale the storage nodes"
                + " down to "
                + o.storageDesired()
                + ": "
                + ByteQuantity.display(node.get().usedBytes())
                + " of replicas to move"));
  }

  // ---- 4-6. storage pods ----

  private static Next storage(RolloutObservation o) {
    RolloutPhase phase = RolloutPhase.StorageNodes;
    List<PodView> current = current(o.storage(), o.storageDesired());
    for (PodView p : current) {
      Optional<MasterStatus.NodeStatus> node = o.node(p.name());
      if (node.isPresent() && node.get().nodeState() == NodeState.DRAINING) {
        if (!outdated(p, o.storageTemplate())) {
          return new Next(
              phase,
              new RolloutPlan.Replace(
                  p.name(),
                  StepKind.REPAIR,
                  p.name()
                      + " is drained but"
                      + " the pool wants it: restarting it so that it takes placements again"));
        }
        if (node.get().replicas() == 0 && underReplicated(o) == 0) {
          return new Next(
              phase,
              new RolloutPlan.Replace(
                  p.name(),
                  StepKind.AFTER_DRAIN,
                  p.name() + " is drained: replacing it to run release " + o.release()));
        }
        return waitOrTimeout(
            o,
            true,
            phase,
            p.name(),
            stepStart(o, p.name()),
            "draining "
                + p.name()
                + ": "
                + node.get().replicas()
                + " replicas left to copy"
                + (underReplicated(o) > 0
                    ? ", " + underReplicated(o) + " objects waiting for a copy"
                    : ""));
      }
    }
    List<PodView> outdated =
        current.stream()
            .filter(p -> outdated(p, o.storageTemplate()))
            .sorted(Comparator.comparingInt(PodView::ordinal).reversed())
            .toList();
    if (outdated.isEmpty()) {
      return null;
    }
    Optional<PodView> unready = outdated.stream().filter(p -> !p.ready()).findFirst();
    if (unready.isPresent()) {
      return new Next(
          phase,
          new RolloutPlan.Replace(
              unready.get().name(),
              StepKind.REPAIR,
              unready.get().name()
                  + " is not ready on an outdated template: replacing it to run release "
                  + o.release()
                  + " is the repair"));
    }
    String health = healthProblem(o, null);
    if (health != null) {
      return new Next(
          phase,
          new RolloutPlan.Wait(
              null, health + "; the next storage pod is replaced once the pool" + " is healthy"));
    }
    PodView p = outdated.get(0);
    MasterStatus.NodeStatus node =
        o.node(p.name()).orElseThrow(); // healthy: every current node is ALIVE
    if (p.memoryFiles()
        && o.warmTemplate()
        && (o.checking().contains(p.image()) || o.checking().contains(o.image()))) {
      return new Next(
          phase,
          new RolloutPlan.Wait(
              p.name(),
              "waiting for the image checks to tell the inventory"
                  + " formats before "
                  + p.name()
                  + " is restarted warm"));
    }
    String noWarm = warmRestartProblem(o, p);
    if (noWarm == null) {
      return new Next(
          phase,
          new RolloutPlan.Replace(
              p.name(),
              StepKind.WARM_RESTART,
              "replacing "
                  + p.name()
                  + " to run release "
                  + o.release()
                  + " by a warm restart: its "
                  + node.replicas()
                  + " replicas ("
                  + ByteQuantity.display(node.usedBytes())
                  + ") stay in its memory files"
                  + (p.nodeName() == null ? "" : " on node " + p.nodeName())));
    }
    List<PodView> others = current.stream().filter(q -> !q.name().equals(p.name())).toList();
    String noDrain =
        others.size() < o.objectReplicas()
            ? "only "
                + others.size()
                + " other storage nodes for "
                + o.objectReplicas()
                + " replicas per object"
            : roomProblem(o, node, others);
    if (noDrain == null) {
      return new Next(
          phase,
          new RolloutPlan.Drain(
              p.name(),
              "draining "
                  + p.name()
                  + " before it is replaced to"
                  + " run release "
                  + o.release()
                  + " (no warm restart: "
                  + noWarm
                  + "): "
                  + ByteQuantity.display(node.usedBytes())
                  + " of replicas to move"));
    }
    if (o.objectReplicas() >= 2) {
      return new Next(
          phase,
          new RolloutPlan.Replace(
              p.name(),
              StepKind.RESTART,
              "replacing "
                  + p.name()
                  + " to run release "
                  + o.release()
                  + " without a drain ("
                  + noDrain
                  + "; no warm restart: "
                  + noWarm
                  + "): its objects have other replicas, which the leader copies back"));
    }
    return new Next(
        phase,
        new RolloutPlan.Refused(
            p.name(),
            "cannot replace "
                + p.name()
                + " without losing"
                + " objects: no warm restart ("
                + noWarm
                + ") and no drain ("
                + noDrain
                + "), and objects have one replica;"
                + " add a storage node or enable spec.storage.warmRestart"));
  }

  /** Null when {@code p} can be restarted warm, else why not. */
  static String warmRestartProblem(RolloutObservation o, PodView p) {
    if (!p.memoryFiles()) {
      return p.name() + " keeps no memory files (spec.storage.warmRestart was off when it started)";
    }
    if (!o.warmTemplate()) {
      return "spec.storage.warmRestart is off";
    }
    Integer from = p.image() == null ? null : o.inventoryFormats().get(p.image());
    Integer to = o.inventoryFormats().get(o.image());
    if (from == null || to == null) {
      return "the inventory format of "
          + (from == null ? "image " + p.image() : "the target image")
          + " is not"
          + " known";
    }
    if (!from.equals(to)) {
      return "the inventory format changes from " + from + " to " + to;
    }
    return null;
  }

  // ---- 7. masters ----

  private static Next masters(RolloutObservation o) {
    List<PodView> current = current(o.masters(), o.masterReplicas());
    List<PodView> outdated =
        current.stream()
            .filter(p -> outdated(p, o.masterTemplate()))
            .sorted(Comparator.comparingInt(PodView::ordinal).reversed())
            .toList();
    if (outdated.isEmpty()) {
      return null;
    }
    Optional<String> leader = o.leaderPod();
    Optional<PodView> unready = outdated.stream().filter(p -> !p.ready()).findFirst();
    if (unready.isPresent()) {
      PodView p = unready.get();
      return new Next(
          phaseOf(o, p),
          new RolloutPlan.Replace(
              p.name(),
              StepKind.REPAIR,
              "master "
                  + p.name()
                  + " is not ready on an outdated template: replacing it to run release "
                  + o.release()
                  + " is the repair"));
    }
    String health = healthProblem(o, null);
    if (health != null) {
      return new Next(
          RolloutPhase.StandbyMasters,
          new RolloutPlan.Wait(
              null, health + "; the next master is" + " replaced once the pool is healthy"));
    }
    Optional<PodView> standby =
        outdated.stream()
            .filter(p -> leader.map(l -> !l.equals(p.name())).orElse(true))
            .findFirst();
    if (standby.isPresent()) {
      return new Next(
          RolloutPhase.StandbyMasters,
          new RolloutPlan.Replace(
              standby.get().name(),
              StepKind.MASTER,
              "replacing standby master "
                  + standby.get().name()
                  + " to run release "
                  + o.release()));
    }
    PodView old = outdated.get(0); // the leader
    if (o.masterReplicas() == 1) {
      return new Next(
          RolloutPhase.Leader,
          new RolloutPlan.Replace(
              old.name(),
              StepKind.MASTER,
              "replacing the"
                  + " sole master "
                  + old.name()
                  + " to run release "
                  + o.release()
                  + ": the pool does not serve until the"
                  + " new master leads and the storage nodes have re-registered"));
    }
    Instant asked =
        o.step()
            .filter(s -> old.name().equals(s.getPod()) && "StepDown".equals(s.getAction()))
            .map(UpgradePlanner::startedAt)
            .orElse(null);
    if (asked != null) {
      Duration since = Duration.between(asked, o.now());
      if (since.compareTo(o.policy().stepTimeout()) > 0) {
        return new Next(
            RolloutPhase.TimedOut,
            new RolloutPlan.TimedOut(
                old.name(),
                "leader "
                    + old.name()
                    + " still leads "
                    + human(since)
                    + " after it was asked to step down"));
      }
      if (since.compareTo(STEP_DOWN_RETRY) < 0) {
        return new Next(
            RolloutPhase.Leader,
            new RolloutPlan.Wait(
                old.name(),
                "waiting for leader " + old.name() + " to hand over to an updated standby"));
      }
    }
    return new Next(
        RolloutPhase.Leader,
        new RolloutPlan.StepDown(
            old.name(),
            "asking leader "
                + old.name()
                + " to step down so that an updated standby leads; then it is replaced to run release "
                + o.release()));
  }

  // ---- health ----

  private static String leaderProblem(RolloutObservation o) {
    if (o.leader().isEmpty()) {
      return "the leader's status cannot be read";
    }
    MasterStatus m = o.leader().get();
    if (!m.serving()) {
      return "the leader is "
          + m.role()
          + "/"
          + m.state()
          + (m.recovery() != null && m.recovery().recovering()
              ? " (" + m.recovery().describe() + ")"
              : "");
    }
    return null;
  }

  /**
   * Null when a new step may start: a serving leader, every pod ready, every storage node ALIVE,
   * nothing to copy.
   */
  private static String healthProblem(RolloutObservation o, String except) {
    String leader = leaderProblem(o);
    if (leader != null) {
      return leader;
    }
    for (PodView p : current(o.masters(), o.masterReplicas())) {
      if (!p.ready()) {
        return "master " + p.name() + " is not ready";
      }
    }
    for (PodView p : current(o.storage(), o.storageDesired())) {
      if (p.name().equals(except)) {
        continue;
      }
      if (!p.ready()) {
        return "storage node " + p.name() + " is not ready";
      }
      Optional<MasterStatus.NodeStatus> node = o.node(p.name());
      if (node.isEmpty() || node.get().nodeState() != NodeState.ALIVE) {
        return "storage node "
            + p.name()
            + " is "
            + node.map(MasterStatus.NodeStatus::state).orElse("unknown to the leader");
      }
    }
    if (underReplicated(o) > 0) {
      return underReplicated(o) + " objects wait for a replica copy";
    }
    return null;
  }

  /**
   * Null when the replicas of {@code node} fit in the free memory of the ALIVE nodes of {@code
   * remaining}.
   */
  private static String roomProblem(
      RolloutObservation o, MasterStatus.NodeStatus node, List<PodView> remaining) {
    long free = 0;
    int alive = 0;
    for (PodView q : remaining) {
      Optional<MasterStatus.NodeStatus> n = o.node(q.name());
      if (n.isPresent()
          && n.get().nodeState() == NodeState.ALIVE
          && !n.get().id().equals(node.id())) {
        free += Math.max(0, n.get().capacityBytes() - n.get().usedBytes());
        alive++;
      }
    }
    if (alive < o.objectReplicas()) {
      return "only "
          + alive
          + " other live storage nodes for "
          + o.objectReplicas()
          + " replicas per object";
    }
    if (node.usedBytes() > free) {
      return "its "
          + ByteQuantity.display(node.usedBytes())
          + " of replicas do not fit in the "
          + ByteQuantity.display(free)
          + " free on the "
          + alive
          + " other storage nodes";
    }
    return null;
  }

  private static long underReplicated(RolloutObservation o) {
    return o.leader()
        .map(MasterStatus::counters)
        .map(MasterStatus.Counters::underReplicated)
        .orElse(0L);
  }

  // ---- helpers ----

  private static int updated(List<PodView> pods, String template, int replicas) {
    return (int)
        current(pods, replicas).stream()
            .filter(p -> !outdated(p, template) && p.ready() && !p.terminating())
            .count();
  }

  static List<PodView> current(List<PodView> pods, int replicas) {
    return pods.stream().filter(p -> p.ordinal() < replicas).toList();
  }

  static boolean outdated(PodView p, String template) {
    return template != null && !template.equals(p.templateHash());
  }

  private static Optional<PodView> find(List<PodView> pods, int ordinal) {
    return pods.stream().filter(p -> p.ordinal() == ordinal).findFirst();
  }

  private static RolloutPhase phaseOf(RolloutObservation o, PodView p) {
    if (p.component() == Component.STORAGE) {
      return p.ordinal() >= o.storageDesired()
          ? RolloutPhase.ScalingDown
          : RolloutPhase.StorageNodes;
    }
    return o.leaderPod().map(p.name()::equals).orElse(false)
        ? RolloutPhase.Leader
        : RolloutPhase.StandbyMasters;
  }

  /**
   * When the operator last acted on {@code pod} (its drain, its deletion), if the status recorded
   * it.
   */
  private static Instant stepStart(RolloutObservation o, String pod) {
    return o.step().filter(s -> pod.equals(s.getPod())).map(UpgradePlanner::startedAt).orElse(null);
  }

  private static Instant startedAt(RolloutStep s) {
    String at = s.getActedAt() != null ? s.getActedAt() : s.getStartedAt();
    try {
      return at == null ? null : Instant.parse(at);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  static String human(Duration d) {
    long s = d.toSeconds();
    return s >= 120 ? (s / 60) + "m" + (s % 60 == 0 ? "" : " " + (s % 60) + "s") : s + "s";
  }
}
