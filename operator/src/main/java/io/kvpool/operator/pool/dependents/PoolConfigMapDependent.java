package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.ConfigMaps;

/**
 * {@code <pool>-config} ({@link ConfigMaps#pool}). Its informer watches every ConfigMap of the
 * operator; the client ConfigMap dependent shares it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class PoolConfigMapDependent
    extends CRUDKubernetesDependentResource<ConfigMap, KvCachePool> {

  public PoolConfigMapDependent() {
    super(ConfigMap.class);
  }

  @Override
  protected ConfigMap desired(KvCachePool pool, Context<KvCachePool> context) {
    return ConfigMaps.pool(pool);
  }
}
