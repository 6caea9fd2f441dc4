package io.kvpool.operator.pool;

import io.kvpool.operator.common.KubernetesEventRecorder.Type;

/** Reasons of the Events published about a pool; each is emitted once per status transition. */
public enum PoolEventReason {
  PoolReady(Type.Normal),
  PoolNotReady(Type.Warning),
  InvalidSpec(Type.Warning),
  ReconcileFailed(Type.Warning),
  MasterUnreachable(Type.Warning),
  ReplicasUnavailable(Type.Warning),
  Recovered(Type.Normal),
  StorageScaled(Type.Normal),
  LeaderChanged(Type.Normal);

  private final Type type;

  PoolEventReason(Type type) {
    this.type = type;
  }

  public Type type() {
    return type;
  }
}
