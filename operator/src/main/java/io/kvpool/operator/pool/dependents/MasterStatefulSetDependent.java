package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.StatefulSets;

/**
 * {@code <pool>-master} ({@link StatefulSets#master}), at the release the rollout renders. Its
 * informer watches every StatefulSet of the operator; the storage StatefulSet dependent shares it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterStatefulSetDependent
    extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {

  public MasterStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return StatefulSets.master(pool, RenderInputs.rollout(pool, context));
  }
}
