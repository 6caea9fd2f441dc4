package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.operator.TestPools;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MasterStatefulSetTest {

  @Test
  void runsTheMasterMainWithTheConfigMountProbesAndLabels() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getMaster().setReplicas(3);
    pool.getSpec()
        .getMaster()
        .setResources(ComputeResources.of(Map.of("cpu", new Quantity("500m")), null));

    StatefulSet sts = StatefulSets.master(pool);

    assertThat(sts.getMetadata().getName()).isEqualTo("p-master");
    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getServiceName()).isEqualTo("p-master-peers");
    assertThat(sts.getSpec().getSelector().getMatchLabels())
        .containsOnly(
            Map.entry("app.kubernetes.io/name", "kvpool"),
            Map.entry("app.kubernetes.io/instance", "p"),
            Map.entry("app.kubernetes.io/component", "master"));
    Map<String, String> podLabels = sts.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels)
        .containsEntry("app.kubernetes.io/version", "0.1.0")
        .containsEntry("kvpool.io/pool", "p")
        .containsEntry("app.kubernetes.io/component", "master");
    assertThat(sts.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("kvpool.io/release", "0.1.0");
    assertThat(sts.getMetadata().getAnnotations())
        .containsEntry("kvpool.io/image", "kvpool/data-plane:0.1.0");
    assertThat(sts.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("p-master");

    Container master = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(master.getImage()).isEqualTo("kvpool/data-plane:0.1.0");
    // no arguments: the settings come from the pool ConfigMap mounted at KVPOOL_CONFIG_DIR
    // (ConfigContractTest)
    assertThat(master.getCommand()).last().isEqualTo("io.kvpool.master.MasterMain");
    assertThat(master.getArgs()).isNullOrEmpty();
    assertThat(master.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("KVPOOL_CONFIG_DIR");
              assertThat(e.getValue()).isEqualTo("/etc/kvpool");
            });
    assertThat(master.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("KVPOOL_ADVERTISE_HOST");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("status.podIP");
            });
    assertThat(master.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/kvpool"));
    assertThat(master.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
    assertThat(master.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("admin");
    assertThat(master.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
    assertThat(master.getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("admin");
              assertThat(p.getContainerPort()).isEqualTo(8080);
            });
    assertThat(master.getEnv()).extracting(e -> e.getName()).contains("POD_NAME", "POD_NAMESPACE");
    assertThat(master.getResources().getRequests())
        .containsEntry("cpu", new Quantity("500m"))
        .containsEntry("memory", new Quantity("1Gi"));
    assertThat(master.getResources().getLimits()).containsEntry("memory", new Quantity("1Gi"));
    assertThat(master.getCommand())
        .containsSequence(
            "java",
            "-Xmx512m",
            "-XX:MaxDirectMemorySize=256m",
            "-XX:+ExitOnOutOfMemoryError",
            "-Djna.tmpdir=/tmp",
            "-cp",
            "/opt/kvpool/lib/*");
  }

  /**
   * What the restricted Pod Security Standard asks of a pod; PodSecurityAdmissionTest applies it
   * for real.
   */
  @Test
  void runsAsNonRootWithAReadOnlyRootFilesystemAndAWritableTmp() {
    var podSpec =
        StatefulSets.master(TestPools.defaultedPool("ns", "p")).getSpec().getTemplate().getSpec();
    Container master = podSpec.getContainers().get(0);

    assertThat(podSpec.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(podSpec.getSecurityContext().getRunAsUser()).isEqualTo(65532L);
    assertThat(podSpec.getSecurityContext().getSeccompProfile().getType())
        .isEqualTo("RuntimeDefault");
    assertThat(master.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(master.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(master.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(master.getSecurityContext().getCapabilities().getAdd()).isNullOrEmpty();
    assertThat(master.getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getMountPath()).isEqualTo("/tmp");
              assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE);
            });
    assertThat(podSpec.getVolumes())
        .anySatisfy(
            v -> {
              assertThat(v.getName()).isEqualTo("tmp");
              assertThat(v.getEmptyDir()).isNotNull();
            });
  }

  @Test
  void appliesTheMastersOwnSchedulingAndIgnoresTheStorageBlock() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    SchedulingSpec scheduling = new SchedulingSpec();
    scheduling.setNodeSelector(Map.of("pool", "kv"));
    scheduling.setTolerations(
        List.of(new TolerationBuilder().withKey("npu").withOperator("Exists").build()));
    pool.getSpec().getMaster().setScheduling(scheduling);
    SchedulingSpec storage = new SchedulingSpec();
    storage.setNodeSelector(Map.of("accelerator", "npu"));
    pool.getSpec().setScheduling(storage);

    var podSpec = StatefulSets.master(pool).getSpec().getTemplate().getSpec();

    assertThat(podSpec.getNodeSelector()).containsOnly(Map.entry("pool", "kv"));
    assertThat(podSpec.getTolerations()).extracting(t -> t.getKey()).containsExactly("npu");
    assertThat(podSpec.getTopologySpreadConstraints())
        .singleElement()
        .satisfies(
            spread -> assertThat(spread.getTopologyKey()).isEqualTo("kubernetes.io/hostname"));
  }

  @Test
  void usesTheImageOfTheSpecWhenGiven() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().setImage("registry.local/kvpool:custom");

    StatefulSet sts = StatefulSets.master(pool);

    assertThat(sts.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.local/kvpool:custom");
  }
}
