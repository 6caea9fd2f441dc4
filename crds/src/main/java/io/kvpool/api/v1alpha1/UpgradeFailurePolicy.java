package io.kvpool.api.v1alpha1;

/** What the operator does when an upgrade step does not become ready in time. */
public enum UpgradeFailurePolicy {
  Pause,
  Rollback
}
