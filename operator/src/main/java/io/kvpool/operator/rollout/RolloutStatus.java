package io.kvpool.operator.rollout;

import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.RolloutStep;
import io.kvpool.api.v1alpha1.UpgradeFailurePolicy;
import io.kvpool.api.v1alpha1.UpgradeStatus;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolEventReason;
import io.kvpool.operator.common.StatusMessage;
import io.kvpool.operator.rollout.RolloutPlan.Action;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Writes {@code status.upgrade} after a reconciliation's rollout decision, and finds the Events its
 * transitions call for: a rollout starting, a step done (with its path, duration and bytes moved),
 * a refusal, a timeout, a rollback, the rollout complete. Pure. What it records is bookkeeping an
 * operator restart must not lose (when the rollout and its current step started, bytes moved so
 * far); what to do next is never read from it, except that a rollback started stays a rollback
 * ({@link ReleaseGate}).
 */
public final class RolloutStatus {
  private static final Set<RolloutPhase> ENDED =
      Set.of(
          RolloutPhase.Completed,
          RolloutPhase.RolledBack,
          RolloutPhase.Blocked,
          RolloutPhase.Withdrawn);

  /** Phases in which no pod has been replaced yet. */
  private static final Set<RolloutPhase> NOT_STARTED =
      Set.of(RolloutPhase.Checking, RolloutPhase.Blocked);

  private RolloutStatus() {}

  /**
   * What the reconciliation decided and did.
   *
   * @param target spec.version and its image
   * @param runningReleases the releases the pods record
   * @param acted the action taken (null when it failed or none was due)
   * @param actedEvent the Event announcing that action, published after those of the status (a step
   *     done first)
   * @param failure why the action failed, or null
   * @param onFailure spec.upgrade.onFailure
   */
  public record Round(
      ReleaseGate.Release target,
      ReleaseGate.Decision gate,
      RolloutPlan plan,
      RolloutObservation observed,
      Set<String> runningReleases,
      Action acted,
      PoolEvent actedEvent,
      String failure,
      UpgradeFailurePolicy onFailure,
      Instant now) {}

  /** The next status.upgrade (null while no rollout ever ran) and the Events to publish. */
  public record Update(UpgradeStatus status, List<PoolEvent> events) {}

  public static Update next(UpgradeStatus previous, Round r) {
    List<PoolEvent> events = new ArrayList<>();
    RolloutPhase phase = phase(r);
    boolean releaseChange =
        !r.gate().render().version().equals(lowest(r.runningReleases(), r.gate()));
    boolean active = releaseChange || phase != RolloutPhase.Completed;
    RolloutPhase before = previous == null ? null : previous.getPhase();
    if (!active && before != null && NOT_STARTED.contains(before)) {
      return withdrawn(previous, r);
    }
    if (!active && (previous == null || ended(before))) {
      return new Update(previous, events);
    }
    UpgradeStatus next = copy(previous);
    boolean starting =
        previous == null || ended(before) && (before == RolloutPhase.Completed || before != phase);
    if (starting) {
      next = new UpgradeStatus();
      next.setFrom(lowest(r.runningReleases(), r.gate()));
      next.setFromImage(r.observed().image());
      next.setStartedAt(timestamp(r.now()));
      next.setBytesMoved(0L);
      next.setWarmRestarts(0);
      next.setDrains(0);
      readCounter(next, r.observed().leader());
    }
    next.setTo(
        r.gate().blocked() || r.gate().verdict() == ReleaseGate.Verdict.CHECKING
            ? r.target().version()
            : r.gate().render().version());
    next.setToImage(
        r.gate().blocked() || r.gate().verdict() == ReleaseGate.Verdict.CHECKING
            ? r.target().image()
            : r.gate().render().image());
    if (r.gate().verdict() == ReleaseGate.Verdict.ROLLING_BACK
        || r.gate().reason() != null && r.gate().reason().equals("RolledBack")) {
      next.setTo(previous.getTo()); // the failed target, which keeps the rollback in force
      next.setToImage(previous.getToImage());
    }
    if (starting || !Objects.equals(previous.getTo(), next.getTo())) {
      next.setReason(reason(r, next));
    }
    next.setUpdated(r.plan().updated());
    next.setTotal(r.plan().total());
    next.setCurrentStep(StatusMessage.bound(r.plan().action().describe()));
    accumulateBytes(next, r.observed().leader());

    Action a = r.acted();
    RolloutStep step = next.getStep();
    if (step != null
        && (a != null && !Objects.equals(a.pod(), step.getPod())
            || r.plan().action() instanceof RolloutPlan.Done)) {
      events.add(stepDone(step, next, r));
      next.setLastStep(StatusMessage.bound(events.get(events.size() - 1).message()));
      next.setStep(null);
    }
    if (a != null && a.pod() != null) {
      RolloutStep current = next.getStep();
      if (current == null || !a.pod().equals(current.getPod())) {
        current = new RolloutStep();
        current.setPod(a.pod());
        current.setAction(actionName(a));
        current.setStartedAt(timestamp(r.now()));
        current.setBytesMovedAtStart(next.getBytesMoved());
        current.setReplicasAtStart(
            r.observed().node(a.pod()).map(MasterStatus.NodeStatus::replicas).orElse(0L));
      } else {
        current =
            copy(current); // a drain, then the deletion: one step, timed from its first action
        if (!"Drain".equals(current.getAction()) || a instanceof RolloutPlan.MarkDrained) {
          current.setAction(actionName(a));
        }
      }
      current.setActedAt(timestamp(r.now()));
      next.setStep(current);
    }
    if (a instanceof RolloutPlan.Drain) {
      next.setDrains(orZero(next.getDrains()) + 1);
    } else if (a instanceof RolloutPlan.Replace rep
        && rep.kind() == RolloutPlan.StepKind.WARM_RESTART) {
      next.setWarmRestarts(orZero(next.getWarmRestarts()) + 1);
    }

    String message =
        r.failure() != null
            ? r.failure()
            : r.gate().blocked()
                ? r.gate().message()
                : phase == RolloutPhase.TimedOut
                        || phase == RolloutPhase.RollingBack
                            && r.plan().action() instanceof RolloutPlan.TimedOut
                    ? r.plan().action().describe()
                    : r.plan().action() instanceof RolloutPlan.Refused
                        ? r.plan().action().describe()
                        : phase == RolloutPhase.RollingBack || phase == RolloutPhase.RolledBack
                            ? previous.getMessage()
                            : null;
    boolean newMessage =
        message != null && !message.equals(previous == null ? null : previous.getMessage());
    next.setMessage(message == null ? null : StatusMessage.bound(message));

    if (starting && !r.gate().blocked()) {
      events.add(
          0,
          new PoolEvent(
              PoolEventReason.RolloutStarted,
              "rollout started: "
                  + next.getReason()
                  + ", "
                  + next.getTotal()
                  + " pods, one at a time"));
    }
    if (r.actedEvent() != null) {
      events.add(r.actedEvent());
    }
    if (r.failure() != null && newMessage) {
      events.add(new PoolEvent(PoolEventReason.RolloutStepFailed, r.failure()));
    }
    if (r.plan().action() instanceof RolloutPlan.Refused && newMessage) {
      events.add(new PoolEvent(PoolEventReason.RolloutRefused, r.plan().action().describe()));
    }
    if (phase == RolloutPhase.TimedOut && before != RolloutPhase.TimedOut) {
      events.add(
          new PoolEvent(
              PoolEventReason.RolloutTimedOut,
              r.plan().action().describe()
                  + "; the rollout is paused until the step's pod is ready (spec.upgrade.onFailure: Pause)"));
    }
    if (phase == RolloutPhase.RollingBack && before != RolloutPhase.RollingBack) {
      events.add(
          new PoolEvent(
              PoolEventReason.RollingBack,
              r.plan().action().describe()
                  + "; rolling back to "
                  + next.getFrom()
                  + " (spec.upgrade.onFailure: Rollback)"));
    }
    if (r.plan().action() instanceof RolloutPlan.Done
        && (phase == RolloutPhase.Completed || phase == RolloutPhase.RolledBack)
        && !ended(before)) {
      next.setCompletedAt(timestamp(r.now()));
      next.setCurrentStep(null);
      events.add(
          new PoolEvent(
              phase == RolloutPhase.RolledBack
                  ? PoolEventReason.RolledBack
                  : PoolEventReason.RolloutCompleted,
              summary(next, phase, r.now())));
    }
    next.setPhase(phase);
    return new Update(next, events);
  }

  /**
   * spec.version is what runs again while its change was checked or refused: nothing to do, and
   * status says so.
   */
  private static Update withdrawn(UpgradeStatus previous, Round r) {
    UpgradeStatus next = copy(previous);
    String running = r.gate().render().version();
    String message =
        "spec.version is "
            + running
            + " again: the change to "
            + previous.getTo()
            + " was withdrawn before any pod was replaced";
    next.setPhase(RolloutPhase.Withdrawn);
    next.setMessage(message);
    next.setCurrentStep(null);
    next.setStep(null);
    next.setCompletedAt(timestamp(r.now()));
    return new Update(next, List.of(new PoolEvent(PoolEventReason.RolloutWithdrawn, message)));
  }

  private static boolean ended(RolloutPhase phase) {
    return phase != null && ENDED.contains(phase);
  }

  private static RolloutPhase phase(Round r) {
    boolean rollingBack = r.gate().verdict() == ReleaseGate.Verdict.ROLLING_BACK;
    if (r.plan().action() instanceof RolloutPlan.TimedOut
        && r.onFailure() == UpgradeFailurePolicy.Rollback) {
      return RolloutPhase.RollingBack; // the gate renders the release the rollout started from next
    }
    if (rollingBack) {
      return r.plan().action() instanceof RolloutPlan.Done
          ? RolloutPhase.RolledBack
          : RolloutPhase.RollingBack;
    }
    if (r.gate().reason() != null && r.gate().reason().equals("RolledBack")) {
      return RolloutPhase.RolledBack;
    }
    if (r.plan().phase() == RolloutPhase.Completed) {
      return r.gate().blocked()
          ? RolloutPhase.Blocked
          : r.gate().verdict() == ReleaseGate.Verdict.CHECKING
              ? RolloutPhase.Checking
              : RolloutPhase.Completed;
    }
    return r.plan().phase();
  }

  private static String reason(Round r, UpgradeStatus next) {
    if (!Objects.equals(next.getFrom(), next.getTo())) {
      return "release " + next.getFrom() + " -> " + next.getTo();
    }
    boolean surplus =
        r.observed().storage().stream().anyMatch(p -> p.ordinal() >= r.observed().storageDesired());
    return surplus
        ? "scale down to " + r.observed().storageDesired() + " storage nodes"
        : "pod template change";
  }

  /** The event of a finished step: which path it took, how long, how many bytes were moved. */
  private static PoolEvent stepDone(RolloutStep step, UpgradeStatus next, Round r) {
    Instant started = parse(step.getStartedAt());
    String took =
        started == null ? "" : " in " + UpgradePlanner.human(Duration.between(started, r.now()));
    long moved = Math.max(0, orZero(next.getBytesMoved()) - orZero(step.getBytesMovedAtStart()));
    String what =
        switch (step.getAction()) {
          case "WarmRestart" -> {
            long now =
                r.observed().node(step.getPod()).map(MasterStatus.NodeStatus::replicas).orElse(0L);
            long before = orZero(step.getReplicasAtStart());
            yield "restarted warm on release "
                + r.gate().render().version()
                + ": "
                + Math.min(now, before)
                + " of "
                + before
                + " replicas kept in its memory files"
                + (now < before ? " (the rest copied back)" : "");
          }
          case "Drain" -> "drained and replaced to run release " + r.gate().render().version();
          case "StepDown" ->
              "handed leadership over" + r.observed().leaderPod().map(l -> " to " + l).orElse("");
          case "Remove" -> "drained and removed";
          default -> "replaced to run release " + r.gate().render().version();
        };
    return new PoolEvent(
        PoolEventReason.RolloutStepDone,
        step.getPod() + " " + what + took + ", " + bytes(moved) + " moved");
  }

  private static String summary(UpgradeStatus s, RolloutPhase phase, Instant now) {
    Instant started = parse(s.getStartedAt());
    return (phase == RolloutPhase.RolledBack
            ? "rolled back to release " + s.getFrom()
            : s.getReason() + " done")
        + " on "
        + s.getTotal()
        + " pods"
        + (started == null ? "" : " in " + UpgradePlanner.human(Duration.between(started, now)))
        + ": "
        + orZero(s.getWarmRestarts())
        + " storage pods restarted warm, "
        + orZero(s.getDrains())
        + " drained, "
        + bytes(orZero(s.getBytesMoved()))
        + " moved between storage nodes";
  }

  /** 0 B, 512 B, 12MiB. */
  static String bytes(long n) {
    return n < 1024 ? n + " B" : ByteQuantity.display(n) + "B";
  }

  /**
   * Adds the bytes the leader copied since the last reading; a new leader's counter starts a new
   * baseline.
   */
  private static void accumulateBytes(UpgradeStatus s, Optional<MasterStatus> leader) {
    if (leader.isEmpty() || leader.get().counters() == null || !leader.get().leading()) {
      return;
    }
    String pod = leader.get().leader() == null ? "" : leader.get().leader().pod();
    long value = leader.get().counters().repairedBytes();
    if (pod.equals(s.getCopyCounterLeader())
        && s.getCopyCounterBytes() != null
        && value >= s.getCopyCounterBytes()) {
      s.setBytesMoved(orZero(s.getBytesMoved()) + value - s.getCopyCounterBytes());
    }
    s.setCopyCounterLeader(pod);
    s.setCopyCounterBytes(value);
  }

  private static void readCounter(UpgradeStatus s, Optional<MasterStatus> leader) {
    leader
        .filter(MasterStatus::leading)
        .filter(l -> l.counters() != null)
        .ifPresent(
            l -> {
              s.setCopyCounterLeader(l.leader() == null ? "" : l.leader().pod());
              s.setCopyCounterBytes(l.counters().repairedBytes());
            });
  }

  /** The oldest release a pod runs (what the rollout comes from), else the rendered one. */
  private static String lowest(Set<String> releases, ReleaseGate.Decision gate) {
    return releases.stream()
        .min(
            (a, b) ->
                VersionPolicy.Release.parse(a)
                    .flatMap(x -> VersionPolicy.Release.parse(b).map(x::compareTo))
                    .orElse(a.compareTo(b)))
        .orElse(gate.render().version());
  }

  private static String actionName(Action a) {
    if (a instanceof RolloutPlan.Replace r) {
      return r.kind().action();
    }
    if (a instanceof RolloutPlan.MarkDrained) {
      return "Remove";
    }
    return a.getClass().getSimpleName();
  }

  private static RolloutStep copy(RolloutStep s) {
    RolloutStep c = new RolloutStep();
    c.setPod(s.getPod());
    c.setAction(s.getAction());
    c.setStartedAt(s.getStartedAt());
    c.setActedAt(s.getActedAt());
    c.setBytesMovedAtStart(s.getBytesMovedAtStart());
    c.setReplicasAtStart(s.getReplicasAtStart());
    return c;
  }

  private static UpgradeStatus copy(UpgradeStatus s) {
    if (s == null) {
      return null;
    }
    UpgradeStatus c = new UpgradeStatus();
    c.setFrom(s.getFrom());
    c.setTo(s.getTo());
    c.setFromImage(s.getFromImage());
    c.setToImage(s.getToImage());
    c.setPhase(s.getPhase());
    c.setReason(s.getReason());
    c.setUpdated(s.getUpdated());
    c.setTotal(s.getTotal());
    c.setCurrentStep(s.getCurrentStep());
    c.setStartedAt(s.getStartedAt());
    c.setCompletedAt(s.getCompletedAt());
    c.setBytesMoved(s.getBytesMoved());
    c.setWarmRestarts(s.getWarmRestarts());
    c.setDrains(s.getDrains());
    c.setLastStep(s.getLastStep());
    c.setMessage(s.getMessage());
    c.setStep(s.getStep());
    c.setCopyCounterLeader(s.getCopyCounterLeader());
    c.setCopyCounterBytes(s.getCopyCounterBytes());
    return c;
  }

  private static String timestamp(Instant now) {
    return now.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private static Instant parse(String time) {
    try {
      return time == null ? null : Instant.parse(time);
    } catch (java.time.format.DateTimeParseException e) {
      return null;
    }
  }

  private static long orZero(Long v) {
    return v == null ? 0 : v;
  }

  private static int orZero(Integer v) {
    return v == null ? 0 : v;
  }
}
