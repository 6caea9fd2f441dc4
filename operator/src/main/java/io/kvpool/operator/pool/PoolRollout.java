package io.kvpool.operator.pool;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.kvpool.api.v1alpha1.KvCachePool;
import java.util.Optional;

/**
 * What the rollout lets the dependents render in this reconciliation: the release (spec.version only once the release
 * gate allowed it) and, while surplus storage pods are drained one at a time, the storage replica count reached so
 * far. Decided once per reconciliation by the reconciler, before the workflow runs, and handed to the StatefulSet and
 * client ConfigMap dependents through the workflow context under this type; without it (a dry run, a test) the spec
 * is rendered as written.
 *
 * @param storageReplicas the storage StatefulSet's replicas; empty: spec.storage.replicas
 */
public record PoolRollout(String version, String image, Optional<Integer> storageReplicas) {

  /** The spec as written: its version and image, its replica count. */
  public static PoolRollout ofSpec(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new PoolRollout(settings.version(), settings.image(), Optional.empty());
  }

  /** The decision the reconciler put in the workflow context, else the spec as written. */
  public static PoolRollout of(KvCachePool pool, Context<KvCachePool> context) {
    return context.managedWorkflowAndDependentResourceContext().get(PoolRollout.class, PoolRollout.class)
        .orElseGet(() -> ofSpec(pool));
  }

  /** Hands the decision to this reconciliation's dependents. */
  public void put(Context<KvCachePool> context) {
    context.managedWorkflowAndDependentResourceContext().put(PoolRollout.class, this);
  }
}
