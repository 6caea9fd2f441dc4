package io.kvpool.api.v1alpha1;

/** Where a rollout (upgrade, template change, scale-down) stands; spelled as in the CRD. */
public enum RolloutPhase {
  /**
   * The target image runs a short-lived pod that declares its release, protocol and inventory
   * format.
   */
  Checking,
  /** Surplus storage pods are drained and removed, highest ordinal first. */
  ScalingDown,
  /** Storage pods are replaced one at a time. */
  StorageNodes,
  /** Standby masters are replaced one at a time. */
  StandbyMasters,
  /** The leader steps down, an updated standby takes over, the old leader is replaced. */
  Leader,
  /** Every pod runs the target. */
  Completed,
  /** spec.upgrade.paused holds it. */
  Paused,
  /** A step did not finish within spec.upgrade.stepTimeout: held until its pod becomes ready. */
  TimedOut,
  /**
   * A step timed out with onFailure Rollback: pods return to the version the rollout started from.
   */
  RollingBack,
  /**
   * Every pod is back on the version the rollout started from; the target is not tried again until
   * it changes.
   */
  RolledBack,
  /** The change was refused (UpgradeBlocked): nothing was restarted. */
  Blocked,
  /** The change was taken back while it was checked or refused, before any pod was replaced. */
  Withdrawn
}
