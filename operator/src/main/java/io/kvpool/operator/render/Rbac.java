package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolObjectMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * The masters' identity ({@code <pool>-master}): a ServiceAccount, its Role and the binding between
 * them.
 */
public final class Rbac {
  private Rbac() {}

  /** The identity the masters use for leader election and for labelling their own pod. */
  public static ServiceAccount masterServiceAccount(KvCachePool pool) {
    return new ServiceAccountBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.master(pool)))
        .build();
  }

  /**
   * Least privilege for the masters: the election Lease of their pool and their own pods, nothing
   * else. Creating and listing cannot be narrowed by name in RBAC, so those verbs get their own
   * rule; reading and updating (fabric8's elector renews and takes the Lease over with a patch) are
   * limited to the pool's Lease and to the master pods by name.
   */
  public static Role masterRole(KvCachePool pool) {
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
                .withVerbs(
                    "get", "update", "patch") // fabric8 renews and takes the Lease over with patch
                .build(),
            new PolicyRuleBuilder()
                .withApiGroups("")
                .withResources("pods")
                .withResourceNames(masterPods)
                .withVerbs("get", "patch")
                .build())
        .build();
  }

  /** Grants the masters' Role to the masters' ServiceAccount. */
  public static RoleBinding masterRoleBinding(KvCachePool pool) {
    return new RoleBindingBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.master(pool)))
        .withNewRoleRef()
        .withApiGroup("rbac.authorization.k8s.io")
        .withKind("Role")
        .withName(PoolNames.master(pool))
        .endRoleRef()
        .addNewSubject()
        .withKind("ServiceAccount")
        .withName(PoolNames.master(pool))
        .withNamespace(pool.getMetadata().getNamespace())
        .endSubject()
        .build();
  }
}
