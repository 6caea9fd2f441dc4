package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.DriverMount;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StorageStatefulSetTest {

  private static Container container(StatefulSet sts) {
    return sts.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  @Test
  void runsTheStorageMainFromTheConfigMountWithMemoryCoveringTheSegments() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("4Gi"));
    pool.getSpec().getStorage().setSegments(4);

    StatefulSet sts = StatefulSets.storage(pool, TransportSettings.PLAIN_TCP);

    assertThat(sts.getMetadata().getName()).isEqualTo("p-storage");
    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getServiceName()).isEqualTo("p-storage");
    Container storage = container(sts);
    assertThat(storage.getCommand()).last().isEqualTo("io.kvpool.storage.StorageNodeMain");
    assertThat(storage.getArgs()).isNullOrEmpty();
    assertThat(storage.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("KVPOOL_NODE_ID");
              assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
            });
    assertThat(storage.getEnv())
        .extracting(e -> e.getName())
        .contains("KVPOOL_CONFIG_DIR", "KVPOOL_ADVERTISE_HOST", "KVPOOL_TRANSPORT_PROTOCOL");
    assertThat(storage.getResources().getLimits()).containsEntry("memory", new Quantity("4608Mi"));
    assertThat(storage.getResources().getRequests())
        .containsEntry("memory", new Quantity("4608Mi"));
    assertThat(storage.getResources().getLimits()).doesNotContainKey("hugepages-2Mi");
    assertThat(storage.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
    assertThat(storage.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
    assertThat(sts.getSpec().getTemplate().getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/component", "storage")
        .containsEntry("app.kubernetes.io/version", "0.1.0");
    assertThat(sts.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("kvpool.io/release", "0.1.0");
  }

  @Test
  void explicitHugePagesRequestHugepages2MiAndMountThem() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("1Gi"));
    pool.getSpec().getStorage().setHugePages(HugePages.EXPLICIT);

    Container storage = container(StatefulSets.storage(pool, TransportSettings.PLAIN_TCP));

    assertThat(storage.getResources().getLimits())
        .containsEntry("hugepages-2Mi", new Quantity("1Gi"))
        .as("ordinary memory only for the JVM: the segments are reserved once")
        .containsEntry("memory", new Quantity("512Mi"));
    assertThat(storage.getResources().getRequests())
        .containsEntry("hugepages-2Mi", new Quantity("1Gi"));
    assertThat(storage.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .contains("/dev/hugepages");
  }

  @Test
  void aUserMemoryLimitBelowTheSegmentsIsRaised() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("2Gi"));
    pool.getSpec()
        .getStorage()
        .setResources(
            ComputeResources.of(
                null, Map.of("memory", new Quantity("1Gi"), "cpu", new Quantity("2"))));

    Container storage = container(StatefulSets.storage(pool, TransportSettings.PLAIN_TCP));

    assertThat(storage.getResources().getLimits())
        .containsEntry("memory", new Quantity("2560Mi"))
        .containsEntry("cpu", new Quantity("2"));
  }

  @Test
  void anAscendEngineRequestsDevicesAndMountsTheDriver() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    TransferEngine engine = TestPools.ascendEngine("ns", "npu", "huawei.com/Ascend910", 2);

    StatefulSet sts = StatefulSets.storage(pool, TransportSettings.of(engine));

    Container storage = container(sts);
    assertThat(storage.getResources().getRequests())
        .containsEntry("huawei.com/Ascend910", new Quantity("2"));
    assertThat(storage.getResources().getLimits())
        .containsEntry("huawei.com/Ascend910", new Quantity("2"));
    assertThat(storage.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .contains(
            "/usr/local/Ascend/driver",
            "/usr/local/dcmi",
            "/usr/local/bin/npu-smi",
            "/etc/ascend_install.info",
            "/etc/hccn.conf");
    assertThat(storage.getVolumeMounts())
        .filteredOn(m -> !m.getMountPath().equals("/tmp"))
        .allSatisfy(m -> assertThat(m.getReadOnly()).as(m.getMountPath()).isTrue());
    assertThat(sts.getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(v -> v.getHostPath() != null)
        .extracting(v -> v.getHostPath().getPath())
        .contains("/usr/local/Ascend/driver", "/etc/hccn.conf");
    assertThat(storage.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("KVPOOL_VISIBLE_DEVICES_ENV");
              assertThat(e.getValue()).isEqualTo("ASCEND_VISIBLE_DEVICES");
            });
    assertThat(storage.getEnv())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("KVPOOL_TRANSPORT_PROTOCOL");
              assertThat(e.getValue()).isEqualTo("ascend");
            });
  }

  @Test
  void driverMountsOfTheEngineReplaceTheDefaults() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    TransferEngine engine = TestPools.ascendEngine("ns", "npu", "huawei.com/ascend-1980", 1);
    engine.getSpec().getDevices().setDriverMounts(List.of(DriverMount.of("drv", "/opt/ascend")));

    Container storage = container(StatefulSets.storage(pool, TransportSettings.of(engine)));

    assertThat(storage.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .contains("/opt/ascend")
        .doesNotContain("/usr/local/Ascend/driver");
  }

  @Test
  void meetsTheRestrictedLevelWithoutCapabilitiesAndSpreadsAcrossNodes() {
    StatefulSet sts =
        StatefulSets.storage(TestPools.defaultedPool("ns", "p"), TransportSettings.PLAIN_TCP);
    var podSpec = sts.getSpec().getTemplate().getSpec();
    Container storage = container(sts);

    assertThat(podSpec.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(podSpec.getSecurityContext().getSeccompProfile().getType())
        .isEqualTo("RuntimeDefault");
    assertThat(podSpec.getAutomountServiceAccountToken()).isFalse();
    assertThat(storage.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(storage.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(storage.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(storage.getSecurityContext().getCapabilities().getAdd())
        .as("no IPC_LOCK: nothing mlocks")
        .isNullOrEmpty();
    assertThat(storage.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .contains("/tmp", "/etc/kvpool");
    assertThat(storage.getCommand())
        .containsSequence("java", "-Xmx256m", "-XX:MaxDirectMemorySize=128m");
    assertThat(podSpec.getTopologySpreadConstraints())
        .singleElement()
        .satisfies(
            spread -> {
              assertThat(spread.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
              assertThat(spread.getLabelSelector().getMatchLabels())
                  .isEqualTo(sts.getSpec().getSelector().getMatchLabels());
            });
  }

  @Test
  void theReplicaCountIsTheOnlyFieldTheStorageReplicasDrive() {
    KvCachePool three = TestPools.defaultedPool("ns", "p");
    KvCachePool five = TestPools.defaultedPool("ns", "p");
    five.getSpec().getStorage().setReplicas(5);

    StatefulSet a = StatefulSets.storage(three, TransportSettings.PLAIN_TCP);
    StatefulSet b = StatefulSets.storage(five, TransportSettings.PLAIN_TCP);

    assertThat(b.getSpec().getReplicas()).isEqualTo(5);
    assertThat(b.getSpec().getTemplate()).isEqualTo(a.getSpec().getTemplate());
    assertThat(StatefulSets.master(five)).isEqualTo(StatefulSets.master(three));
    assertThat(ConfigMaps.pool(five)).isEqualTo(ConfigMaps.pool(three));
    assertThat(DisruptionBudgets.storage(five)).isEqualTo(DisruptionBudgets.storage(three));
  }
}
