package io.kvpool.operator.autoscale;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The autoscaling decision, pure: the rules below, in this order, each with its reason.
 *
 * <ol>
 *   <li>{@code ExternalOwner}: spec.storage.replicas differs from what the operator last wrote, or
 *       did within the longer window: another writer (an HPA, KEDA, kubectl scale) owns it; hold.
 *   <li>{@code ScalingDown}: the drain of a scale-down is under way; hold until it is done.
 *   <li>{@code BelowMinimum} / {@code AboveMaximum}: bring the count inside the bounds (down not
 *       during a rollout, never below what the data needs).
 *   <li>{@code NoSignals}: no reading in the last minute (leader unreadable or too old to report
 *       signals); hold.
 *   <li>{@code WaitingForNodes}: the leader counts fewer live nodes than replicas (new nodes
 *       registering); hold.
 *   <li>{@code TargetExceeded}: every reading of the scale-up window at this node count exceeds a
 *       target: add nodes, as many as the fullness says ({@code ceil(n × fullness / target)}), at
 *       most the step and the maximum. {@code AtMaximum} when it cannot.
 *   <li>{@code RolloutInProgress}: a rollout runs; no scale-down.
 *   <li>{@code TargetsMetWithFewerNodes}: every reading of the scale-down window nothing was
 *       evicted, capacity misses stayed under half their target and the data fitted under the
 *       fullness target (or the high watermark) on fewer nodes: remove nodes, at most the step,
 *       never below the minimum, {@code objectReplicas}, or the nodes the data needs under the high
 *       watermark.
 *   <li>{@code WithinTargets}: hold.
 * </ol>
 *
 * The windows count only readings taken at the current node count, so each scaling restarts them.
 */
public final class Autoscaler {
  /** A reading older than this is no signal. */
  static final Duration STALE = Duration.ofSeconds(60);

  private Autoscaler() {}

  public static ScalingVerdict decide(AutoscalingInputs in) {
    AutoscalingPolicy p = in.policy();
    int n = in.replicas();
    Optional<SignalSample> latest =
        in.history().isEmpty()
            ? Optional.empty()
            : Optional.of(in.history().get(in.history().size() - 1));
    if (in.lastWritten() != null && in.lastWritten() != n) {
      return ScalingVerdict.hold(
          "ExternalOwner",
          n,
          "spec.storage.replicas was changed from "
              + in.lastWritten()
              + " to "
              + n
              + " by another writer (an HPA, KEDA or kubectl scale): the operator keeps "
              + n
              + " and holds"
              + " for "
              + seconds(p.externalOwnerHold()),
          latest);
    }
    if (in.externalChangeSeen() != null
        && in.now().isBefore(in.externalChangeSeen().plus(p.externalOwnerHold()))) {
      return ScalingVerdict.hold(
          "ExternalOwner",
          n,
          "spec.storage.replicas was changed by another writer at "
              + in.externalChangeSeen()
              + ": the operator holds until "
              + in.externalChangeSeen().plus(p.externalOwnerHold()),
          latest);
    }
    if (in.scalingDown()) {
      return ScalingVerdict.hold(
          "ScalingDown",
          n,
          "a surplus storage node is being drained; the next decision comes"
              + " after it is removed",
          latest);
    }
    int dataFloor = dataFloor(in, latest);
    if (n < p.minReplicas()) {
      return new ScalingVerdict(
          ScalingVerdict.Action.ScaleUp,
          "BelowMinimum",
          n,
          p.minReplicas(),
          n + " storage nodes is below autoscaling.minReplicas " + p.minReplicas(),
          latest);
    }
    if (n > p.maxReplicas()) {
      int to = Math.max(p.maxReplicas(), dataFloor);
      if (in.rolloutActive() || to >= n) {
        return ScalingVerdict.hold(
            in.rolloutActive() ? "RolloutInProgress" : "DataNeedsNodes",
            n,
            n
                + " storage nodes is above autoscaling.maxReplicas "
                + p.maxReplicas()
                + (in.rolloutActive()
                    ? "; waiting for the rollout to finish"
                    : ", but the data needs " + dataFloor),
            latest);
      }
      return new ScalingVerdict(
          ScalingVerdict.Action.ScaleDown,
          "AboveMaximum",
          n,
          to,
          n + " storage nodes is above autoscaling.maxReplicas " + p.maxReplicas(),
          latest);
    }
    if (latest.isEmpty() || latest.get().at().isBefore(in.now().minus(STALE))) {
      return ScalingVerdict.hold(
          "NoSignals", n, "no cache signals from the leader in the last " + seconds(STALE), latest);
    }
    SignalSample now = latest.get();
    if (now.aliveNodes() != n) {
      return ScalingVerdict.hold(
          "WaitingForNodes",
          n,
          "the leader counts "
              + now.aliveNodes()
              + " live storage"
              + " nodes of "
              + n
              + "; deciding once they are all registered",
          latest);
    }
    if (heldFor(in.history(), n, in.now(), p.scaleUpWindow(), s -> exceeded(p, s))) {
      if (n >= p.maxReplicas()) {
        return ScalingVerdict.hold(
            "AtMaximum",
            n,
            exceededText(p, now)
                + " for "
                + seconds(p.scaleUpWindow())
                + ", but the pool is at autoscaling.maxReplicas "
                + p.maxReplicas(),
            latest);
      }
      int wanted = n + 1;
      if (p.fullnessTarget().isPresent() && now.fullness() > p.fullnessTarget().getAsDouble()) {
        wanted =
            Math.max(
                wanted, (int) Math.ceil(n * now.fullness() / p.fullnessTarget().getAsDouble()));
      }
      int to = Math.min(Math.min(wanted, n + p.scaleUpStep()), p.maxReplicas());
      return new ScalingVerdict(
          ScalingVerdict.Action.ScaleUp,
          "TargetExceeded",
          n,
          to,
          exceededText(p, now) + " for " + seconds(p.scaleUpWindow()),
          latest);
    }
    if (in.rolloutActive()) {
      return ScalingVerdict.hold(
          "RolloutInProgress", n, "no scale-down while a rollout runs", latest);
    }
    int floor = Math.max(p.minReplicas(), dataFloor);
    if (n > floor
        && heldFor(
            in.history(), n, in.now(), p.scaleDownWindow(), s -> fitsWith(p, in, s, n - 1))) {
      int to = n - 1;
      while (to - 1 >= Math.max(floor, n - p.scaleDownStep()) && fitsWith(p, in, now, to - 1)) {
        to--;
      }
      return new ScalingVerdict(
          ScalingVerdict.Action.ScaleDown,
          "TargetsMetWithFewerNodes",
          n,
          to,
          "for "
              + seconds(p.scaleDownWindow())
              + " nothing was evicted and the data would fill "
              + percent(now.fullnessWith(to))
              + " of "
              + to
              + " nodes",
          latest);
    }
    return ScalingVerdict.hold(
        "WithinTargets",
        n,
        "memory fullness "
            + percent(now.fullness())
            + ", capacity misses "
            + rate(now.capacityMissesPerSecond())
            + "/s",
        latest);
  }

  /**
   * The fewest nodes the data needs: {@code objectReplicas}, and enough nodes of the average
   * capacity to hold each tier's used bytes under the high watermark of that tier: the memory
   * tier's, and a disk tier's too (its data leaves with a removed node as well, and the tier drops
   * its oldest files once past 90 % of its cap).
   */
  static int dataFloor(AutoscalingInputs in, Optional<SignalSample> latest) {
    int floor = Math.max(1, in.objectReplicas());
    return latest.map(s -> Math.max(floor, s.nodesFor(in.highWatermark()))).orElse(floor);
  }

  private static boolean exceeded(AutoscalingPolicy p, SignalSample s) {
    return p.fullnessTarget().isPresent() && s.fullness() > p.fullnessTarget().getAsDouble()
        || p.capacityMissTarget().isPresent()
            && s.capacityMissesPerSecond() > p.capacityMissTarget().getAsDouble();
  }

  /**
   * With {@code nodes} nodes the reading would meet every target with margin, and nothing was being
   * evicted.
   */
  private static boolean fitsWith(
      AutoscalingPolicy p, AutoscalingInputs in, SignalSample s, int nodes) {
    double limit = p.fullnessTarget().orElse(in.highWatermark());
    return s.evictedBytesPerSecond() == 0
        && s.fullnessWith(nodes) <= limit
        && (p.capacityMissTarget().isEmpty()
            || s.capacityMissesPerSecond() <= p.capacityMissTarget().getAsDouble() / 2);
  }

  /**
   * Whether every reading taken at {@code nodes} nodes during the last {@code window} holds, and
   * such readings cover the window: the run of holding readings at this count begins at or before
   * its start.
   */
  private static boolean heldFor(
      List<SignalSample> history,
      int nodes,
      Instant now,
      Duration window,
      java.util.function.Predicate<SignalSample> holds) {
    Instant start = now.minus(window);
    for (int i = history.size() - 1; i >= 0; i--) {
      SignalSample s = history.get(i);
      if (s.aliveNodes() != nodes || !holds.test(s)) {
        return false;
      }
      if (!s.at().isAfter(start)) {
        return true;
      }
    }
    return false;
  }

  private static String exceededText(AutoscalingPolicy p, SignalSample s) {
    StringBuilder b = new StringBuilder();
    if (p.fullnessTarget().isPresent() && s.fullness() > p.fullnessTarget().getAsDouble()) {
      b.append("memory fullness ")
          .append(percent(s.fullness()))
          .append(" above the target ")
          .append(percent(p.fullnessTarget().getAsDouble()));
    }
    if (p.capacityMissTarget().isPresent()
        && s.capacityMissesPerSecond() > p.capacityMissTarget().getAsDouble()) {
      b.append(b.isEmpty() ? "" : " and ")
          .append("capacity misses ")
          .append(rate(s.capacityMissesPerSecond()))
          .append("/s above the target ")
          .append(rate(p.capacityMissTarget().getAsDouble()))
          .append("/s");
    }
    return b.toString();
  }

  static String percent(double ratio) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * ratio);
  }

  private static String rate(double perSecond) {
    return String.format(Locale.ROOT, "%.2f", perSecond);
  }

  private static String seconds(Duration d) {
    return d.toSeconds() + "s";
  }
}
