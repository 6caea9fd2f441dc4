package io.kvpool.api.v1alpha1;

/** Rollout strategy of a version change; constants spelled as in the CRD. */
public enum UpgradeStrategy {
  RollingUpdate,
  Paused
}
