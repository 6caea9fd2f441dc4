package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.Services;

/**
 * {@code <pool>-master-peers} ({@link Services#masterPeers}). Its informer watches every Service of
 * the operator; the leader and storage Service dependents share it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterPeerServiceDependent
    extends CRUDKubernetesDependentResource<Service, KvCachePool> {

  public MasterPeerServiceDependent() {
    super(Service.class);
  }

  @Override
  protected Service desired(KvCachePool pool, Context<KvCachePool> context) {
    return Services.masterPeers(pool);
  }
}
