package io.kvpool.operator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.testkube.RealKubeApiServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The autoscaler's write of spec.storage.replicas against the real API server, as the operator's
 * ServiceAccount with only what the chart grants it on pools (list, watch, patch; no get): the
 * write lands, and a write based on a pool that changed since it was read is refused (409), not
 * applied. On a real cluster a write by name alone failed with 403, as it first GETs the pool.
 */
@ExtendWith(RealKubeApiServer.class)
class StorageScaleTest {
  private static final String NS = "storage-scale";
  private static final String USER = "system:serviceaccount:" + NS + ":operator";

  @Test
  void writesTheReplicaCountWithOnlyPatchOnPoolsAndRefusesAStalePool(KubernetesClient admin) {
    admin
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .serverSideApply();
    // the chart's rules for kvcachepools (helm/kvpool/templates/_helpers.tpl, kvpool.poolRules)
    admin
        .resource(
            new RoleBuilder()
                .withNewMetadata()
                .withName("operator")
                .withNamespace(NS)
                .endMetadata()
                .addNewRule()
                .withApiGroups("kvpool.io")
                .withResources("kvcachepools")
                .withVerbs("list", "watch")
                .endRule()
                .addNewRule()
                .withApiGroups("kvpool.io")
                .withResources("kvcachepools")
                .withVerbs("patch")
                .endRule()
                .build())
        .serverSideApply();
    admin
        .resource(
            new RoleBindingBuilder()
                .withNewMetadata()
                .withName("operator")
                .withNamespace(NS)
                .endMetadata()
                .withNewRoleRef()
                .withApiGroup("rbac.authorization.k8s.io")
                .withKind("Role")
                .withName("operator")
                .endRoleRef()
                .addNewSubject()
                .withKind("User")
                .withApiGroup("rbac.authorization.k8s.io")
                .withName(USER)
                .endSubject()
                .build())
        .serverSideApply();
    KvCachePool created = admin.resource(TestPools.pool(NS, "scaled")).create();

    try (KubernetesClient operator =
        new KubernetesClientBuilder()
            .withConfig(
                new ConfigBuilder(admin.getConfiguration())
                    .withImpersonateUsername(USER)
                    .withImpersonateGroups("system:serviceaccounts", "system:authenticated")
                    .build())
            .build()) {
      assertThat(StorageScale.write(operator, created, 4)).as("written").isTrue();
      assertThat(
              admin
                  .resources(KvCachePool.class)
                  .inNamespace(NS)
                  .withName("scaled")
                  .get()
                  .getSpec()
                  .getStorage()
                  .getReplicas())
          .isEqualTo(4);

      // the same, now stale, pool: another writer got there first
      assertThat(StorageScale.write(operator, created, 2))
          .as("written over a newer pool")
          .isFalse();
      assertThat(
              admin
                  .resources(KvCachePool.class)
                  .inNamespace(NS)
                  .withName("scaled")
                  .get()
                  .getSpec()
                  .getStorage()
                  .getReplicas())
          .isEqualTo(4);
    }
  }
}
