package io.kvpool.operator.autoscale;

import java.util.Optional;

/**
 * What the autoscaler decided: a new replica count, or to hold, with a reason and the reading it
 * was taken on.
 *
 * @param reason one word per rule (see {@link Autoscaler})
 * @param latest the newest reading, empty when there is none
 */
public record ScalingVerdict(
    Action action, String reason, int from, int to, String message, Optional<SignalSample> latest) {
  /** What a decision does to spec.storage.replicas. */
  public enum Action {
    ScaleUp,
    ScaleDown,
    Hold
  }

  static ScalingVerdict hold(
      String reason, int replicas, String message, Optional<SignalSample> latest) {
    return new ScalingVerdict(Action.Hold, reason, replicas, replicas, message, latest);
  }

  public boolean scales() {
    return action != Action.Hold;
  }
}
