package io.kvpool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DiskTierHealthTest {

  @Test
  void absentWhileNoNodeHasADiskTierOrTheLeaderIsUnread() {
    assertThat(DiskTierHealth.of(Optional.empty())).isEmpty();
    assertThat(DiskTierHealth.of(Optional.of(master(node("p-storage-0", "ALIVE", null)))))
        .isEmpty();
  }

  @Test
  void healthyTiersSayHowMuchIsUsed() {
    var verdict =
        DiskTierHealth.of(
                Optional.of(
                    master(
                        node("p-storage-0", "ALIVE", disk(1L << 30, 256L << 20, true, "")),
                        node("p-storage-1", "ALIVE", disk(1L << 30, 256L << 20, true, "")))))
            .orElseThrow();

    assertThat(verdict.status()).isFalse();
    assertThat(verdict.reason()).isEqualTo("DiskTiersHealthy");
    assertThat(verdict.message())
        .isEqualTo("The disk tiers of 2 storage node(s) are healthy: 512Mi of 2Gi used.");
  }

  @Test
  void aDegradedTierIsNamedWithItsReasonAndDeadNodesAreLeftOut() {
    var verdict =
        DiskTierHealth.of(
                Optional.of(
                    master(
                        node("p-storage-0", "ALIVE", disk(1L << 30, 0, true, "")),
                        node(
                            "p-storage-1",
                            "ALIVE",
                            disk(1L << 30, 3L << 20, false, "No space left on device")),
                        node("p-storage-2", "DEAD", disk(1L << 30, 0, false, "gone")))))
            .orElseThrow();

    assertThat(verdict.status()).isTrue();
    assertThat(verdict.reason()).isEqualTo("DiskTierDegraded");
    assertThat(verdict.message())
        .isEqualTo(
            "The disk tier of storage node p-storage-1 is degraded (No space left on device); it"
                + " serves from memory only.");
  }

  @Test
  void manyDegradedTiersNameAFewAndCountTheRest() {
    List<MasterStatus.NodeStatus> nodes =
        java.util.stream.IntStream.range(0, 5)
            .mapToObj(i -> node("p-storage-" + i, "ALIVE", disk(1L << 30, 0, false, "I/O error")))
            .toList();

    var verdict =
        DiskTierHealth.of(Optional.of(master(nodes.toArray(MasterStatus.NodeStatus[]::new))))
            .orElseThrow();

    assertThat(verdict.message())
        .contains("p-storage-0", "p-storage-1", "p-storage-2")
        .doesNotContain("p-storage-3")
        .endsWith("2 more storage node(s) have a degraded disk tier.");
  }

  private static MasterStatus.NodeDisk disk(
      long capacity, long used, boolean healthy, String message) {
    return new MasterStatus.NodeDisk(capacity, used, healthy, message);
  }

  private static MasterStatus.NodeStatus node(String id, String state, MasterStatus.NodeDisk disk) {
    return new MasterStatus.NodeStatus(
        id,
        "10.0.0.1:50052",
        state,
        64L << 20,
        0,
        0,
        "0.2.0",
        "2.4",
        100,
        "tcp",
        List.of(),
        disk,
        false);
  }

  private static MasterStatus master(MasterStatus.NodeStatus... nodes) {
    return new MasterStatus(
        AdminJson.API_VERSION,
        "p",
        "LEADER",
        "SERVING",
        1,
        null,
        "0.2.0",
        "2.4",
        new MasterStatus.Recovery(false, 0, List.of()),
        List.of(nodes),
        0,
        0,
        0,
        null,
        null,
        null);
  }
}
