package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.render.PodSecurity;
import io.kvpool.operator.render.PodSecurity.Level;
import io.kvpool.operator.render.Rbac;
import io.kvpool.operator.render.StatefulSets;
import io.kvpool.operator.transferengine.TransportSettings;
import io.kvpool.testkube.RealKubeApiServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The pods the operator renders, created in namespaces that enforce each Pod Security Standard
 * level through the PodSecurity admission plugin built into kube-apiserver: masters and TCP storage
 * nodes are admitted under {@code restricted}; storage nodes of a TransferEngine with host
 * networking or driver host paths (Ascend) need {@code privileged}, because {@code baseline}
 * already refuses both. The pods are created the way the StatefulSet controller would create them
 * from the rendered templates.
 */
@ExtendWith(RealKubeApiServer.class)
class PodSecurityAdmissionTest {
  private static KubernetesClient client;

  @BeforeAll
  static void createNamespaces(KubernetesClient kubernetes) {
    client = kubernetes;
    for (Level level : Level.values()) {
      String namespace = namespace(level);
      client
          .resource(
              new NamespaceBuilder()
                  .withNewMetadata()
                  .withName(namespace)
                  .addToLabels("pod-security.kubernetes.io/enforce", level.label())
                  .addToLabels("pod-security.kubernetes.io/enforce-version", "latest")
                  .endMetadata()
                  .build())
          .serverSideApply();
      // No controller-manager creates the default ServiceAccount the storage pods run under.
      client
          .resource(
              new ServiceAccountBuilder()
                  .withNewMetadata()
                  .withName("default")
                  .withNamespace(namespace)
                  .endMetadata()
                  .build())
          .serverSideApply();
    }
  }

  private static String namespace(Level level) {
    return "psa-" + level.label();
  }

  private static KvCachePool pool(Level level, String name) {
    KvCachePool pool = TestPools.defaultedPool(namespace(level), name);
    pool.getMetadata().setUid("00000000-0000-0000-0000-000000000001");
    pool.setApiVersion("kvpool.io/v1alpha1");
    pool.setKind("KvCachePool");
    return pool;
  }

  /** Creates pod 0 of the StatefulSet as the StatefulSet controller would. */
  private static Pod createPodOf(StatefulSet sts) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(sts.getMetadata().getName() + "-0")
            .withNamespace(sts.getMetadata().getNamespace())
            .withLabels(sts.getSpec().getTemplate().getMetadata().getLabels())
            .endMetadata()
            .withSpec(sts.getSpec().getTemplate().getSpec())
            .build();
    return client.resource(pod).create();
  }

  private static void assertRefusedByPodSecurity(StatefulSet sts, Level level) {
    assertThatThrownBy(() -> createPodOf(sts))
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            refused -> {
              assertThat(refused.getCode()).isEqualTo(403);
              assertThat(refused.getMessage())
                  .contains("violates PodSecurity \"" + level.label() + ":latest\"");
            });
  }

  @Test
  void podSecurityAdmissionIsEnforcedByTheTestServer() {
    Pod privileged =
        new PodBuilder()
            .withNewMetadata()
            .withName("privileged")
            .withNamespace(namespace(Level.RESTRICTED))
            .endMetadata()
            .withNewSpec()
            .addNewContainer()
            .withName("c")
            .withImage("busybox")
            .withNewSecurityContext()
            .withPrivileged(true)
            .endSecurityContext()
            .endContainer()
            .endSpec()
            .build();

    assertThatThrownBy(() -> client.resource(privileged).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("violates PodSecurity \"restricted:latest\"");
  }

  @Test
  void mastersAndTcpStorageNodesAreAdmittedUnderRestricted() {
    KvCachePool pool = pool(Level.RESTRICTED, "plain");
    client.resource(Rbac.masterServiceAccount(pool)).create();
    KvCachePool hugePages = pool(Level.RESTRICTED, "huge");
    hugePages.getSpec().getStorage().setHugePages(HugePages.EXPLICIT);

    assertThat(createPodOf(StatefulSets.master(pool)).getMetadata().getUid()).isNotBlank();
    assertThat(
            createPodOf(StatefulSets.storage(pool, TransportSettings.PLAIN_TCP))
                .getMetadata()
                .getUid())
        .isNotBlank();
    assertThat(
            createPodOf(StatefulSets.storage(hugePages, TransportSettings.PLAIN_TCP))
                .getMetadata()
                .getUid())
        .as("explicit huge pages")
        .isNotBlank();
    assertThat(PodSecurity.masterLevel()).isEqualTo(Level.RESTRICTED);
    assertThat(PodSecurity.storageLevel(TransportSettings.PLAIN_TCP)).isEqualTo(Level.RESTRICTED);
  }

  @Test
  void ascendStorageNodesNeedPrivilegedBecauseOfTheDriverHostPaths() {
    TransferEngine ascend = TestPools.ascendEngine("any", "npu", "huawei.com/Ascend910", 1);
    TransportSettings transport = TransportSettings.of(ascend);

    assertRefusedByPodSecurity(
        StatefulSets.storage(pool(Level.RESTRICTED, "npu"), transport), Level.RESTRICTED);
    assertRefusedByPodSecurity(
        StatefulSets.storage(pool(Level.BASELINE, "npu"), transport), Level.BASELINE);
    Pod admitted = createPodOf(StatefulSets.storage(pool(Level.PRIVILEGED, "npu"), transport));

    assertThat(admitted.getSpec().getContainers().get(0).getResources().getLimits())
        .containsEntry("huawei.com/Ascend910", new Quantity("1"));
    assertThat(admitted.getSpec().getContainers().get(0).getVolumeMounts())
        .filteredOn(m -> m.getMountPath().startsWith("/usr/local"))
        .isNotEmpty()
        .allSatisfy(m -> assertThat(m.getReadOnly()).isTrue());
    assertThat(PodSecurity.storageLevel(transport)).isEqualTo(Level.PRIVILEGED);
  }

  @Test
  void hostNetworkStorageNodesNeedPrivileged() {
    TransferEngine rdma = TestPools.tcpEngine("any", "rdma");
    rdma.getSpec().setHostNetwork(true);
    TransportSettings transport = TransportSettings.of(rdma);

    assertRefusedByPodSecurity(
        StatefulSets.storage(pool(Level.RESTRICTED, "host"), transport), Level.RESTRICTED);
    assertRefusedByPodSecurity(
        StatefulSets.storage(pool(Level.BASELINE, "host"), transport), Level.BASELINE);
    assertThat(
            createPodOf(StatefulSets.storage(pool(Level.PRIVILEGED, "host"), transport))
                .getSpec()
                .getHostNetwork())
        .isTrue();
    assertThat(PodSecurity.storageLevel(transport)).isEqualTo(Level.PRIVILEGED);
  }
}
