package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.rbac.Role;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.Rbac;

/** The masters' least privilege ({@link Rbac#masterRole}). */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterRoleDependent extends CRUDKubernetesDependentResource<Role, KvCachePool> {

  public MasterRoleDependent() {
    super(Role.class);
  }

  @Override
  protected Role desired(KvCachePool pool, Context<KvCachePool> context) {
    return Rbac.masterRole(pool);
  }
}
