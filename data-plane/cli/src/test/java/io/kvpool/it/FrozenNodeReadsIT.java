package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Reads with one of three storage nodes frozen (SIGSTOP) while the master still lists it. A batch
 * get takes in every node's replies at once (other threads than the caller's collect some of them)
 * and still comes back whole from the other replicas, the frozen node tried once (its keys are read
 * again from the others as one batch, never key by key from a replica chosen at random, which may
 * be the frozen one again). Single gets one after another cost the frozen node's timeout once: the
 * client remembers the node that failed and its later gets read the other replicas first.
 */
class FrozenNodeReadsIT {
  private static final int VALUES = 90;

  /**
   * What one exchange with the frozen node costs; long enough that no exchange with a live node
   * ever runs out on a busy machine.
   */
  private static final Duration EXCHANGE_TIMEOUT = Duration.ofSeconds(5);

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          // the master must keep listing the frozen node: it is not declared dead in this test
          b -> b.storageNodes(3).memoryPerNode("128MiB").nodeTtl("300s"));

  @Test
  void aBatchWithOneNodeFrozenComesBackWholeFromTheOtherReplicas() {
    Map<String, Long> crc = putValues("frozen-batch/");
    List<String> keys = List.copyOf(crc.keySet());
    PrometheusRegistry metrics = new PrometheusRegistry();
    try (KvPoolClient reader = reader(metrics)) {
      assertWhole(reader.getBatch(keys), crc); // every node's connection opened and warm
      StorageNodeProcess frozen = pool.pool().storageNode("node-2");
      frozen.process().suspend();
      try {
        long reads = exchanges(metrics, "READ");
        long t0 = System.nanoTime();
        assertWhole(reader.getBatch(keys), crc);
        System.out.printf(
            "batch of %d with node-2 frozen: whole in %d ms (%d s per exchange)%n",
            VALUES, (System.nanoTime() - t0) / 1_000_000, EXCHANGE_TIMEOUT.toSeconds());
        assertThat(exchanges(metrics, "READ"))
            .as("single-key READs: the frozen node's keys were read again as batches")
            .isEqualTo(reads);
      } finally {
        frozen.process().resume();
      }
      assertWhole(reader.getBatch(keys), crc);
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  @Test
  void afterOneGetMetTheFrozenNodeTheClientsLaterGetsReadTheOtherReplicas() {
    Map<String, Long> crc = putValues("frozen-single/");
    List<String> keys = List.copyOf(crc.keySet());
    PrometheusRegistry metrics = new PrometheusRegistry();
    try (KvPoolClient reader = reader(metrics)) {
      assertWhole(reader.getBatch(keys), crc); // every node's connection opened and warm
      StorageNodeProcess frozen = pool.pool().storageNode("node-2");
      frozen.process().suspend();
      try {
        long reads = exchanges(metrics, "READ");
        long t0 = System.nanoTime();
        for (String key : keys) {
          assertThat(Values.crc(reader.get(key))).as("bytes of %s", key).isEqualTo(crc.get(key));
        }
        System.out.printf(
            "%d single gets with node-2 frozen: all read in %d ms (%d s per exchange)%n",
            VALUES, (System.nanoTime() - t0) / 1_000_000, EXCHANGE_TIMEOUT.toSeconds());
        // two thirds of the keys have a replica on node-2; each get picks one of its two replicas
        // at random, so without the client's memory of the failed node about a third of the gets
        // would each wait out an exchange with the frozen node
        assertThat(exchanges(metrics, "READ") - reads)
            .as("READs: one per key, and at most one more (the one exchange with the frozen node)")
            .isBetween((long) VALUES, VALUES + 1L);
      } finally {
        frozen.process().resume();
      }
      for (String key : keys) {
        assertThat(Values.crc(reader.get(key))).as("bytes of %s", key).isEqualTo(crc.get(key));
      }
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  /** Puts {@link #VALUES} random 64 KiB values at R=2; returns each key's CRC. */
  private Map<String, Long> putValues(String prefix) {
    KvPoolClient writer = pool.newClient("it-frozen-writer");
    SplittableRandom random = new SplittableRandom(90);
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    Map<String, Long> crc = new LinkedHashMap<>();
    for (int i = 0; i < VALUES; i++) {
      ByteBuffer v = Values.random(64 << 10, random);
      values.put(prefix + i, v);
      crc.put(prefix + i, Values.crc(v));
    }
    assertThat(writer.putBatch(values, 2).failures()).isEmpty();
    return crc;
  }

  private KvPoolClient reader(PrometheusRegistry metrics) {
    return KvPoolClient.connect(
        ClientConfig.builder()
            .master(pool.pool().masterAddress())
            .clientId("it-frozen-reader")
            .timeout(EXCHANGE_TIMEOUT)
            .operationTimeout(Duration.ofSeconds(300))
            .metrics(metrics)
            .build());
  }

  /** Exchanges of the client with {@code opcode} so far ({@code kvpool_client_rpc_duration}). */
  private static long exchanges(PrometheusRegistry registry, String opcode) {
    long n = 0;
    for (MetricSnapshot s : registry.scrape()) {
      if (s instanceof HistogramSnapshot h
          && h.getMetadata().getPrometheusName().equals("kvpool_client_rpc_duration_seconds")) {
        for (HistogramSnapshot.HistogramDataPointSnapshot p : h.getDataPoints()) {
          n += opcode.equals(p.getLabels().get("opcode")) ? p.getCount() : 0;
        }
      }
    }
    return n;
  }

  private static void assertWhole(Map<String, ByteBuffer> got, Map<String, Long> crc) {
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(crc.keySet());
    got.forEach((k, v) -> assertThat(Values.crc(v)).as("bytes of %s", k).isEqualTo(crc.get(k)));
  }
}
