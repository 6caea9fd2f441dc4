package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import org.junit.jupiter.api.Test;

class ServicesTest {
  private final KvCachePool pool = TestPools.defaultedPool("ns", "p");

  @Test
  void leaderServiceSelectsOnlyTheLeaderMaster() {
    Service service = Services.masterLeader(pool);

    assertThat(service.getMetadata().getName()).isEqualTo("p-master");
    assertThat(service.getSpec().getSelector())
        .containsEntry("kvpool.io/role", "leader")
        .containsEntry("app.kubernetes.io/component", "master")
        .containsEntry("app.kubernetes.io/instance", "p");
    assertThat(service.getSpec().getClusterIP()).isNull();
    assertThat(service.getSpec().getPorts())
        .extracting(p -> p.getName() + ":" + p.getPort())
        .containsExactly("rpc:50051", "admin:8080");
  }

  @Test
  void peerServiceIsHeadlessOverAllMasters() {
    Service service = Services.masterPeers(pool);

    assertThat(service.getMetadata().getName()).isEqualTo("p-master-peers");
    assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(service.getSpec().getPublishNotReadyAddresses()).isTrue();
    assertThat(service.getSpec().getSelector())
        .doesNotContainKey("kvpool.io/role")
        .containsEntry("app.kubernetes.io/component", "master");
  }

  @Test
  void storageServiceIsHeadlessWithTheTransferPort() {
    Service service = Services.storage(pool, TransportSettings.PLAIN_TCP);

    assertThat(service.getMetadata().getName()).isEqualTo("p-storage");
    assertThat(service.getSpec().getClusterIP()).isEqualTo("None");
    assertThat(service.getSpec().getSelector())
        .containsEntry("app.kubernetes.io/component", "storage");
    assertThat(service.getSpec().getPorts())
        .extracting(p -> p.getName() + ":" + p.getPort())
        .containsExactly("rpc:50052", "admin:8081", "transfer:50060");
    assertThat(service.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/name", "kvpool")
        .containsEntry("kvpool.io/pool", "p");
  }
}
