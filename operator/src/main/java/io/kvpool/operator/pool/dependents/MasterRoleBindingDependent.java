package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.Rbac;

/** Grants the masters' Role to the masters' ServiceAccount ({@link Rbac#masterRoleBinding}). */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterRoleBindingDependent
    extends CRUDKubernetesDependentResource<RoleBinding, KvCachePool> {

  public MasterRoleBindingDependent() {
    super(RoleBinding.class);
  }

  @Override
  protected RoleBinding desired(KvCachePool pool, Context<KvCachePool> context) {
    return Rbac.masterRoleBinding(pool);
  }
}
