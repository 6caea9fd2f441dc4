package io.kvpool.operator.render;

import io.kvpool.api.v1alpha1.KvCachePool;
import java.util.Optional;

/**
 * What the rollout lets the dependents render in this reconciliation: the release (spec.version
 * only once the release gate allowed it) and, while surplus storage pods are drained one at a time,
 * the storage replica count reached so far. Decided once per reconciliation by the rollout, before
 * the workflow runs, and handed to the StatefulSet and client ConfigMap dependents through the
 * workflow context; without it (a dry run, a test) the spec is rendered as written ({@link
 * #ofSpec}).
 *
 * @param storageReplicas the storage StatefulSet's replicas; empty: spec.storage.replicas
 */
public record PoolRollout(String version, String image, Optional<Integer> storageReplicas) {

  /** The spec as written: its version and image, its replica count. */
  public static PoolRollout ofSpec(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new PoolRollout(settings.version(), settings.image(), Optional.empty());
  }
}
