package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.PoolNames;

/** The identity the masters use for leader election and for labelling their own pod. */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterServiceAccountDependent extends CRUDKubernetesDependentResource<ServiceAccount, KvCachePool> {

  public MasterServiceAccountDependent() {
    super(ServiceAccount.class);
  }

  @Override
  protected ServiceAccount desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static ServiceAccount desired(KvCachePool pool) {
    return new ServiceAccountBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.master(pool)))
        .build();
  }
}
