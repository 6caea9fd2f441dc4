package io.kvpool.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdminJsonTest {
  private static MasterStatus sample() {
    return new MasterStatus(
        AdminJson.API_VERSION,
        "p",
        "LEADER",
        "SERVING",
        42,
        new MasterStatus.Leader("p-master-1", "10.0.0.5:50051", "10.0.0.5:8080"),
        "0.2.0",
        "2.0",
        new MasterStatus.Recovery(false, 7, List.of("node-2")),
        List.of(
            new MasterStatus.NodeStatus(
                "n1", "10.0.0.6:50052", "ALIVE", 100, 10, 3, "0.2.0", "2.0", 5),
            new MasterStatus.NodeStatus(
                "n2", "10.0.0.7:50052", "DEAD", 0, 0, 0, "0.2.0", "2.0", 20_000)),
        100,
        10,
        3,
        new MasterStatus.Counters(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13),
        null,
        null);
  }

  @Test
  void masterStatusRoundTrips() throws IOException {
    MasterStatus s = sample();
    MasterStatus back = AdminJson.read(AdminJson.write(s), MasterStatus.class);
    assertThat(back).isEqualTo(s);
    assertThat(back.aliveNodes()).isEqualTo(1);
    assertThat(back.leading()).isTrue();
  }

  @Test
  void theEventsOfAPublishingMasterRoundTrip() throws IOException {
    MasterStatus s = sample();
    MasterStatus publishing =
        new MasterStatus(
            s.apiVersion(),
            s.poolId(),
            s.role(),
            s.state(),
            s.view(),
            s.leader(),
            s.releaseVersion(),
            s.protocolVersion(),
            s.recovery(),
            s.nodes(),
            s.capacityBytes(),
            s.usedBytes(),
            s.objectCount(),
            s.counters(),
            null,
            new MasterStatus.Events("kv@pool:p@m", 5557, 5558, (42L << 20) + 3, 1));

    MasterStatus back = AdminJson.read(AdminJson.write(publishing), MasterStatus.class);

    assertThat(back).isEqualTo(publishing);
    assertThat(back.events().sequence()).isEqualTo((42L << 20) + 3);
    assertThat(AdminJson.read(AdminJson.write(s), MasterStatus.class).events())
        .as("a master that publishes no events")
        .isNull();
  }

  @Test
  void unknownFieldsAreIgnoredButAnotherVersionIsRefused() throws IOException {
    String json = AdminJson.write(sample()).replace("\"poolId\"", "\"addedLater\":1,\"poolId\"");
    assertThat(AdminJson.read(json, MasterStatus.class).poolId()).isEqualTo("p");
    String other = AdminJson.write(sample()).replace(AdminJson.API_VERSION, "kvpool.io/admin/v2");
    assertThatThrownBy(() -> AdminJson.read(other, MasterStatus.class))
        .hasMessageContaining("kvpool.io/admin/v2");
  }
}
