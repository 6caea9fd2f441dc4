package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.render.Services;

/**
 * {@code <pool>-master} ({@link Services#masterLeader}). Reads Services through the peer Service
 * dependent's informer.
 */
public class MasterLeaderServiceDependent
    extends CRUDKubernetesDependentResource<Service, KvCachePool> {

  public MasterLeaderServiceDependent() {
    super(Service.class);
  }

  @Override
  protected Service desired(KvCachePool pool, Context<KvCachePool> context) {
    return Services.masterLeader(pool);
  }
}
