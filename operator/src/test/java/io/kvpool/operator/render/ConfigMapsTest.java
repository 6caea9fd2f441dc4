package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import org.junit.jupiter.api.Test;

class ConfigMapsTest {

  @Test
  void poolConfigCarriesTheDataPlaneSettings() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("1Gi"));
    pool.getSpec().getStorage().setSegments(2);

    ConfigMap config = ConfigMaps.pool(pool);

    assertThat(config.getMetadata().getName()).isEqualTo("p-config");
    assertThat(config.getData())
        .containsEntry("KVPOOL_POOL_ID", "p")
        .containsEntry("KVPOOL_LEASE_TTL", "5s")
        .containsEntry("KVPOOL_NODE_TTL", "10s")
        .containsEntry("KVPOOL_HIGH_WATERMARK", "0.9")
        .containsEntry("KVPOOL_EVICT_RATIO", "0.1")
        .containsEntry("KVPOOL_SEGMENTS", "2")
        .containsEntry("KVPOOL_MEMORY_PER_NODE", Long.toString(1L << 30))
        .containsEntry("KVPOOL_LEADER_LEASE", "p-leader")
        .containsEntry("KVPOOL_BIND_HOST", "0.0.0.0")
        .containsEntry("KVPOOL_MASTER_ADDRESS", "p-master-0.p-master-peers.ns.svc:50051")
        .doesNotContainKey("KVPOOL_STORAGE_REPLICAS")
        .doesNotContainKey("KVPOOL_TRANSPORT_PROTOCOL")
        .as("the ramp on is the masters' default: a pool that keeps it gains no key")
        .doesNotContainKey("KVPOOL_PLACEMENT_RAMP");
    assertThat(config.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/managed-by", "kvpool-operator");
  }

  @Test
  void aPoolWithThePlacementRampOffTellsItsMasters() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getMaster().setPlacementRamp(false);

    assertThat(ConfigMaps.pool(pool).getData()).containsEntry("KVPOOL_PLACEMENT_RAMP", "off");
    assertThat(ConfigMaps.MASTER_KEYS).contains("KVPOOL_PLACEMENT_RAMP");
  }

  @Test
  void clientConfigNamesEveryMasterAndCarriesTheTransport() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");

    ConfigMap config =
        ConfigMaps.client(
            pool,
            TransportSettings.of(TestPools.ascendEngine("ns", "npu", "huawei.com/Ascend910", 1)));

    assertThat(config.getMetadata().getName()).isEqualTo("p-client");
    assertThat(config.getData())
        .containsEntry("KVPOOL_MASTER_ADDRESS", "p-master-0.p-master-peers.ns.svc:50051")
        .containsEntry("KVPOOL_MASTER_ADMIN_ADDRESS", "p-master.ns.svc:8080")
        .containsEntry("KVPOOL_RELEASE", "0.1.0")
        .containsEntry("KVPOOL_TRANSFER_ENGINE", "npu")
        .containsEntry("KVPOOL_TRANSPORT_PROTOCOL", "ascend")
        .containsEntry("KVPOOL_DEVICE_RESOURCE", "huawei.com/Ascend910");
  }
}
