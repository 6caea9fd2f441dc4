package io.kvpool.api.v1alpha1;

/** Coarse lifecycle phase of a pool, shown in the Phase column; details are in the conditions. */
public enum PoolPhase {
  Pending,
  Creating,
  Running,
  Degraded,
  Upgrading,
  Failed
}
