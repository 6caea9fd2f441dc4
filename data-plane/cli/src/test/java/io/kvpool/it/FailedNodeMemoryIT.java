package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client's memory of a failed node never keeps a put from its replicas: in a pool of two nodes,
 * once node-1 failed a put and came back, a put at R=2 is first asked for with node-1 avoided,
 * which the master cannot place (NOT_ENOUGH_NODES), and then again without it, and is stored on
 * both nodes.
 */
class FailedNodeMemoryIT {
  private static final Duration EXCHANGE_TIMEOUT = Duration.ofSeconds(5);

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(b -> b.storageNodes(2).memoryPerNode("64MiB").nodeTtl("300s"));

  @Test
  void aRememberedNodeStillTakesAPutThatNeedsEveryNode() {
    PrometheusRegistry metrics = new PrometheusRegistry();
    SplittableRandom random = new SplittableRandom(7);
    try (KvPoolClient client =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(pool.pool().masterAddress())
                .clientId("it-memory")
                .timeout(EXCHANGE_TIMEOUT)
                .operationTimeout(Duration.ofSeconds(300))
                // remembered for the whole test, however slow the machine
                .failedNodeMemory(Duration.ofSeconds(300))
                .metrics(metrics)
                .build())) {
      StorageNodeProcess node1 = pool.pool().storageNode("node-1");
      node1.process().suspend();
      int puts = 0;
      try {
        // the master places puts on node-1 while it lists it; the first that meets it fails there
        // and is placed on node-0
        while (ClientCounts.nodeFailures(metrics, "node-1") == 0) {
          assertThat(puts).as("puts before one was placed on node-1").isLessThan(40);
          client.put("memory/r1-" + puts++, Values.random(64 << 10, random), 1);
        }
      } finally {
        node1.process().resume();
      }
      long starts = ClientCounts.exchanges(metrics, "PUT_START");
      ByteBuffer value = Values.random(64 << 10, random);
      client.put("memory/r2", value, 2);
      assertThat(ClientCounts.exchanges(metrics, "PUT_START") - starts)
          .as("PUT_STARTs of the R=2 put: granted on both nodes at the first")
          .isEqualTo(1);
      assertThat(ReplicaCounts.query(pool.pool().leaderAddress(), "", List.of("memory/r2")))
          .containsEntry("memory/r2", 2);
      assertThat(Values.crc(client.get("memory/r2"))).isEqualTo(Values.crc(value));
      for (int i = 0; i < puts; i++) {
        assertThat(client.get("memory/r1-" + i).remaining()).isEqualTo(64 << 10);
      }
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }
}
