package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.render.ConfigMaps;

/**
 * {@code <pool>-client} ({@link ConfigMaps#client}), at the release the rollout renders. Reads
 * ConfigMaps through the pool ConfigMap dependent's informer.
 */
public class ClientConfigMapDependent
    extends CRUDKubernetesDependentResource<ConfigMap, KvCachePool> {

  public ClientConfigMapDependent() {
    super(ConfigMap.class);
  }

  @Override
  protected ConfigMap desired(KvCachePool pool, Context<KvCachePool> context) {
    return ConfigMaps.client(
        pool, RenderInputs.transport(pool, context), RenderInputs.rollout(pool, context));
  }
}
