package io.kvpool.operator.common;

import io.kvpool.operator.common.KubernetesEventRecorder.Type;

/**
 * Reasons of the Events published about a pool; each is emitted once per status transition, or once
 * per rollout action the operator takes (a drain, a pod replaced, a step-down).
 */
public enum PoolEventReason {
  PoolReady(Type.Normal),
  PoolNotReady(Type.Warning),
  InvalidSpec(Type.Warning),
  ReconcileFailed(Type.Warning),
  MasterUnreachable(Type.Warning),
  ReplicasUnavailable(Type.Warning),
  PodsFailing(Type.Warning),
  Recovered(Type.Normal),
  StorageScaled(Type.Normal),
  LeaderChanged(Type.Normal),
  UpgradeBlocked(Type.Warning),
  ImageCheckStarted(Type.Normal),
  RolloutStarted(Type.Normal),
  DrainingStorageNode(Type.Normal),
  ReplacingPod(Type.Normal),
  LeaderSteppingDown(Type.Normal),
  StorageNodeRemoved(Type.Normal),
  RolloutStepDone(Type.Normal),
  RolloutCompleted(Type.Normal),
  RolloutStepFailed(Type.Warning),
  RolloutRefused(Type.Warning),
  RolloutWithdrawn(Type.Normal),
  RolloutTimedOut(Type.Warning),
  RollingBack(Type.Warning),
  RolledBack(Type.Warning),
  StorageAutoscaled(Type.Normal),
  AutoscalingYielded(Type.Normal);

  private final Type type;

  PoolEventReason(Type type) {
    this.type = type;
  }

  public Type type() {
    return type;
  }
}
