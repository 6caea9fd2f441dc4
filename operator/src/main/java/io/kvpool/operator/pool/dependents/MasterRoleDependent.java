package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.PoolNames;
import java.util.ArrayList;
import java.util.List;

/**
 * Least privilege for the masters: the election Lease of their pool and their own pods, nothing else.
 * Creating and listing cannot be narrowed by name in RBAC, so those verbs get their own rule; reading
 * and updating (fabric8's elector renews and takes the Lease over with a patch) are limited to the pool's Lease and
 * to the master pods by name.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterRoleDependent extends CRUDKubernetesDependentResource<Role, KvCachePool> {

  public MasterRoleDependent() {
    super(Role.class);
  }

  @Override
  protected Role desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static Role desired(KvCachePool pool) {
    int masters = DataPlaneSettings.of(pool).masterReplicas();
    List<String> masterPods = new ArrayList<>();
    for (int i = 0; i < masters; i++) {
      masterPods.add(PoolNames.master(pool) + "-" + i);
    }
    return new RoleBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.master(pool)))
        .withRules(
            new PolicyRuleBuilder()
                .withApiGroups("coordination.k8s.io")
                .withResources("leases")
                .withVerbs("create", "list", "watch")
                .build(),
            new PolicyRuleBuilder()
                .withApiGroups("coordination.k8s.io")
                .withResources("leases")
                .withResourceNames(PoolNames.leaderLease(pool))
                .withVerbs("get", "update", "patch") // fabric8 renews and takes the Lease over with patch
                .build(),
            new PolicyRuleBuilder()
                .withApiGroups("")
                .withResources("pods")
                .withResourceNames(masterPods)
                .withVerbs("get", "patch")
                .build())
        .build();
  }
}
