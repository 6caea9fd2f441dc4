package io.kvpool.operator.autoscale;

import java.time.Instant;
import java.util.List;

/**
 * Everything one autoscaling decision is taken on.
 *
 * @param replicas spec.storage.replicas now
 * @param lastWritten the replica count the operator last wrote
 *     (status.autoscaling.desiredReplicas), null if never
 * @param externalChangeSeen when another writer's change was last found, null if never
 * @param history the readings, oldest first
 * @param rolloutActive a rollout (upgrade, restart, scale-down) is under way
 * @param scalingDown that rollout is draining surplus storage nodes
 * @param objectReplicas copies per object: never fewer storage nodes
 * @param highWatermark the eviction high watermark (0..1): the data must fit under it on the nodes
 *     left
 */
public record AutoscalingInputs(
    AutoscalingPolicy policy,
    int replicas,
    Integer lastWritten,
    Instant externalChangeSeen,
    List<SignalSample> history,
    boolean rolloutActive,
    boolean scalingDown,
    int objectReplicas,
    double highWatermark,
    Instant now) {
  public AutoscalingInputs {
    history = List.copyOf(history);
  }
}
