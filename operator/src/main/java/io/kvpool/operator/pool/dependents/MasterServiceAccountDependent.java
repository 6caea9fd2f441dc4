package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.Rbac;

/** The masters' identity ({@link Rbac#masterServiceAccount}). */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterServiceAccountDependent
    extends CRUDKubernetesDependentResource<ServiceAccount, KvCachePool> {

  public MasterServiceAccountDependent() {
    super(ServiceAccount.class);
  }

  @Override
  protected ServiceAccount desired(KvCachePool pool, Context<KvCachePool> context) {
    return Rbac.masterServiceAccount(pool);
  }
}
