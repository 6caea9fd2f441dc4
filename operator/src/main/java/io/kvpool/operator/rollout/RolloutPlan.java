package io.kvpool.operator.rollout;

import io.kvpool.api.v1alpha1.RolloutPhase;

/**
 * The planner's answer: the one action to take now (or why none), where the rollout stands, and its
 * progress.
 *
 * @param updated pods that run the rendered template and are ready
 * @param total pods the pool has once the rollout is done
 */
public record RolloutPlan(RolloutPhase phase, Action action, int updated, int total) {

  /** What to do now; at most one pod is acted on per plan. */
  public sealed interface Action {
    /** A one-line description for status and events. */
    String describe();

    /** The pod the action (or the wait) is about, or null. */
    default String pod() {
      return null;
    }
  }

  /** Every pod runs the rendered template and the pool is healthy. */
  public record Done(String describe) implements Action {}

  /** Nothing may be done now; {@code pod} is the step under way, if any. */
  public record Wait(String pod, String describe) implements Action {}

  /**
   * Drain the storage node of {@code pod} at the leader (its replicas are copied to the other
   * nodes).
   */
  public record Drain(String pod, String describe) implements Action {}

  /** Delete {@code pod}; its StatefulSet creates it again from the rendered template. */
  public record Replace(String pod, StepKind kind, String describe) implements Action {}

  /** Ask the leader in {@code pod} to step down, so that an updated standby leads. */
  public record StepDown(String pod, String describe) implements Action {}

  /** Mark the drained surplus storage pod for removal: the StatefulSet then shrinks below it. */
  public record MarkDrained(String pod, String describe) implements Action {}

  /** The step on {@code pod} did not finish within the step timeout. */
  public record TimedOut(String pod, String describe) implements Action {}

  /**
   * The step cannot be taken without losing objects (too little room, too few nodes); nothing is
   * done.
   */
  public record Refused(String pod, String describe) implements Action {}

  /** How a pod is replaced, for the step's event and the status counts. */
  public enum StepKind {
    /** A storage pod whose replicas stay in its memory files for the replacement to adopt. */
    WARM_RESTART("WarmRestart"),
    /** A storage pod the leader drained first. */
    AFTER_DRAIN("Drain"),
    /**
     * A storage pod replaced without keeping its memory (no drain possible; its objects have other
     * replicas).
     */
    RESTART("Restart"),
    /** A pod that was not ready on an outdated template: replacing it is the repair. */
    REPAIR("Repair"),
    /** A standby master, or a sole master. */
    MASTER("Restart");

    private final String action;

    StepKind(String action) {
      this.action = action;
    }

    /** The action's name in status.upgrade.step. */
    public String action() {
      return action;
    }
  }
}
