package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch get spread over three storage nodes takes in every node's replies at once (other threads
 * than the caller's collect some of them): with one node frozen, the batch still comes back whole
 * from the other replicas, and once the node thaws the same client reads from it again.
 */
class BatchGetFrozenNodeIT {
  private static final int VALUES = 90;

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(b -> b.storageNodes(3).memoryPerNode("128MiB"));

  @Test
  void aBatchWithOneNodeFrozenComesBackWholeFromTheOtherReplicas() {
    KvPoolClient writer = pool.newClient("it-batch-writer");
    SplittableRandom random = new SplittableRandom(90);
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    Map<String, Long> crc = new LinkedHashMap<>();
    for (int i = 0; i < VALUES; i++) {
      ByteBuffer v = Values.random(64 << 10, random);
      values.put("frozen-batch/" + i, v);
      crc.put("frozen-batch/" + i, Values.crc(v));
    }
    assertThat(writer.putBatch(values, 2).failures()).isEmpty();
    List<String> keys = List.copyOf(values.keySet());
    // a short per-exchange timeout, so reads from the frozen node give up soon
    try (KvPoolClient reader =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(pool.pool().masterAddress())
                .clientId("it-batch-reader")
                .timeout(Duration.ofSeconds(2))
                .operationTimeout(Duration.ofSeconds(120))
                .build())) {
      assertWhole(reader.getBatch(keys), crc); // every node's connection opened and warm
      StorageNodeProcess frozen = pool.pool().storageNode("node-2");
      frozen.process().suspend();
      try {
        long t0 = System.nanoTime();
        assertWhole(reader.getBatch(keys), crc);
        System.out.printf(
            "batch of %d with node-2 frozen: whole in %d ms (2 s per exchange)%n",
            VALUES, (System.nanoTime() - t0) / 1_000_000);
      } finally {
        frozen.process().resume();
      }
      assertWhole(reader.getBatch(keys), crc);
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  private static void assertWhole(Map<String, ByteBuffer> got, Map<String, Long> crc) {
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(crc.keySet());
    got.forEach((k, v) -> assertThat(Values.crc(v)).as("bytes of %s", k).isEqualTo(crc.get(k)));
  }
}
