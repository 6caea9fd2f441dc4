package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.render.StatefulSets;

/**
 * {@code <pool>-storage} ({@link StatefulSets#storage}), at the release and replica count the
 * rollout renders. It reads StatefulSets through the master StatefulSet dependent's informer (one
 * informer per kind).
 */
public class StorageStatefulSetDependent
    extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {

  public StorageStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return StatefulSets.storage(
        pool, RenderInputs.transport(pool, context), RenderInputs.rollout(pool, context));
  }
}
