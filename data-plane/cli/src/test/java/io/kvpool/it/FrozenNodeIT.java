package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.MasterStatus;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Reads and puts with one of three storage nodes frozen (SIGSTOP) while the master still lists it
 * (and places puts on it). A batch get takes in every node's replies at once (other threads than
 * the caller's collect some of them) and still comes back whole from the other replicas, the frozen
 * node tried once (its keys are read again from the others as one batch, never key by key from a
 * replica chosen at random, which may be the frozen one again). Single gets one after another cost
 * the frozen node's timeout once: the client remembers the node that failed and its later gets read
 * the other replicas first. Puts one after another do too: the client's later PUT_STARTs ask the
 * master to place them elsewhere. And once the node has been silent for a few seconds, the master
 * places no put on it, for any client, and lists its replicas for reads only when no other is.
 */
class FrozenNodeIT {
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

  /** Reads of {@link #readWithNode2Frozen}, made while node-2 is frozen. */
  private interface FrozenReads {
    void read(
        KvPoolClient reader, List<String> keys, Map<String, Long> crc, PrometheusRegistry metrics);
  }

  /**
   * Puts the values at R=2 and reads them once (every node's connection opened and warm), runs
   * {@code reads} with node-2 frozen, then reads them again once it resumed.
   */
  private void readWithNode2Frozen(String prefix, FrozenReads reads) {
    Map<String, Long> crc = putValues(prefix);
    List<String> keys = List.copyOf(crc.keySet());
    PrometheusRegistry metrics = new PrometheusRegistry();
    try (KvPoolClient reader = reader(metrics)) {
      assertWhole(reader.getBatch(keys), crc);
      StorageNodeProcess frozen = pool.pool().storageNode("node-2");
      frozen.process().suspend();
      try {
        reads.read(reader, keys, crc, metrics);
      } finally {
        frozen.process().resume();
      }
      assertWhole(reader.getBatch(keys), crc);
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  @Test
  void aBatchWithOneNodeFrozenComesBackWholeFromTheOtherReplicas() {
    readWithNode2Frozen(
        "frozen-batch/",
        (reader, keys, crc, metrics) -> {
          long reads = ClientCounts.exchanges(metrics, "READ");
          long t0 = System.nanoTime();
          assertWhole(reader.getBatch(keys), crc);
          System.out.printf(
              "batch of %d with node-2 frozen: whole in %d ms (%d s per exchange)%n",
              VALUES, (System.nanoTime() - t0) / 1_000_000, EXCHANGE_TIMEOUT.toSeconds());
          assertThat(ClientCounts.exchanges(metrics, "READ"))
              .as("single-key READs: the frozen node's keys were read again as batches")
              .isEqualTo(reads);
          assertThat(ClientCounts.nodeFailures(metrics, "node-2"))
              .as("exchanges with node-2 that failed")
              .isOne();
        });
  }

  @Test
  void afterOneGetMetTheFrozenNodeTheClientsLaterGetsReadTheOtherReplicas() {
    readWithNode2Frozen(
        "frozen-single/",
        (reader, keys, crc, metrics) -> {
          long reads = ClientCounts.exchanges(metrics, "READ");
          long t0 = System.nanoTime();
          for (String key : keys) {
            assertThat(Values.crc(reader.get(key))).as("bytes of %s", key).isEqualTo(crc.get(key));
          }
          System.out.printf(
              "%d single gets with node-2 frozen: all read in %d ms (%d s per exchange)%n",
              VALUES, (System.nanoTime() - t0) / 1_000_000, EXCHANGE_TIMEOUT.toSeconds());
          // two thirds of the keys have a replica on node-2; each get picks one of its two
          // replicas at random, so without the client's memory of the failed node about a third
          // of the gets would each wait out an exchange with the frozen node
          assertThat(ClientCounts.nodeFailures(metrics, "node-2"))
              .as("exchanges with node-2 that failed")
              .isOne();
          assertThat(ClientCounts.exchanges(metrics, "READ") - reads)
              .as("READs: one per key, and one more (the one exchange with the frozen node)")
              .isBetween((long) VALUES, VALUES + 1L);
        });
  }

  @Test
  void afterOnePutMetTheFrozenNodeTheClientsLaterPutsArePlacedElsewhere() {
    PrometheusRegistry metrics = new PrometheusRegistry();
    SplittableRandom random = new SplittableRandom(91);
    Map<String, Long> crc = new LinkedHashMap<>();
    try (KvPoolClient writer = client("it-frozen-writer", metrics)) {
      putValues("frozen-put-warm/"); // every node's connection of the pool's clients opened
      writer.put("frozen-put-first", Values.random(64 << 10, random), 1);
      StorageNodeProcess frozen = pool.pool().storageNode("node-2");
      frozen.process().suspend();
      try {
        long starts = ClientCounts.exchanges(metrics, "PUT_START");
        long t0 = System.nanoTime();
        for (int i = 0; i < VALUES; i++) {
          ByteBuffer v = Values.random(64 << 10, random);
          crc.put("frozen-put/" + i, Values.crc(v));
          writer.put("frozen-put/" + i, v, 1);
        }
        System.out.printf(
            "%d single puts (R=1) with node-2 frozen: all stored in %d ms (%d s per exchange)%n",
            VALUES, (System.nanoTime() - t0) / 1_000_000, EXCHANGE_TIMEOUT.toSeconds());
        // the master places about a third of the puts on node-2 while it lists it: without the
        // client's memory of the failed node each of those would wait out an exchange with it
        assertThat(ClientCounts.nodeFailures(metrics, "node-2"))
            .as("exchanges with node-2 that failed")
            .isOne();
        assertThat(ClientCounts.exchanges(metrics, "PUT_START") - starts)
            .as(
                "PUT_STARTs: one per put, and one more (the put placed again after node-2 failed it)")
            .isEqualTo(VALUES + 1L);
      } finally {
        frozen.process().resume();
      }
    }
    try (KvPoolClient reader = client("it-frozen-reader", new PrometheusRegistry())) {
      assertWhole(reader.getBatch(List.copyOf(crc.keySet())), crc);
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  @Test
  void onceTheFrozenNodeFellSilentTheMasterPlacesNoPutOnIt() {
    PrometheusRegistry metrics = new PrometheusRegistry(); // shared by every client below
    SplittableRandom random = new SplittableRandom(92);
    Map<String, Long> crc = new LinkedHashMap<>();
    putValues("frozen-silent-warm/");
    whileNode2IsSilent(
        () -> {
          // a client of its own for every put: none remembers a failed node
          for (int i = 0; i < 30; i++) {
            try (KvPoolClient writer = client("it-silent-writer-" + i, metrics)) {
              ByteBuffer v = Values.random(64 << 10, random);
              crc.put("frozen-silent/" + i, Values.crc(v));
              writer.put("frozen-silent/" + i, v, 1);
            }
          }
          // without it the master would place about a third of them (more: node-2 is the
          // emptiest) on node-2, each waiting out an exchange with it
          assertThat(ClientCounts.nodeFailures(metrics, "node-2"))
              .as("exchanges with node-2 that failed")
              .isZero();
        });
    try (KvPoolClient reader = client("it-silent-reader", new PrometheusRegistry())) {
      assertWhole(reader.getBatch(List.copyOf(crc.keySet())), crc);
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  @Test
  void onceTheFrozenNodeFellSilentTheMasterSendsFreshReadersToTheOtherReplicas() {
    PrometheusRegistry metrics = new PrometheusRegistry(); // shared by every client below
    Map<String, Long> crc = putValues("frozen-silent-read/");
    List<String> keys = List.copyOf(crc.keySet());
    whileNode2IsSilent(
        () -> {
          // a client of its own for every get: none remembers a failed node, none has the
          // key's replicas in its location cache
          long t0 = System.nanoTime();
          for (int i = 0; i < 30; i++) {
            try (KvPoolClient reader = client("it-silent-reader-" + i, metrics)) {
              String key = keys.get(i);
              assertThat(Values.crc(reader.get(key)))
                  .as("bytes of %s", key)
                  .isEqualTo(crc.get(key));
            }
          }
          System.out.printf(
              "30 gets (R=2) from fresh clients with node-2 silent: all read in %d ms%n",
              (System.nanoTime() - t0) / 1_000_000);
          // two thirds of the keys have a replica on node-2: with node-2 listed, about a third of
          // the gets would each wait out an exchange with it
          assertThat(ClientCounts.nodeFailures(metrics, "node-2"))
              .as("exchanges with node-2 that failed")
              .isZero();
        });
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  /**
   * Freezes node-2, waits until the master's /status says it is silent (no heartbeat for 3 s; still
   * ALIVE: the node TTL is 300 s here), runs {@code work}, resumes the node and waits until it is
   * heard from again.
   */
  private void whileNode2IsSilent(Runnable work) {
    StorageNodeProcess frozen = pool.pool().storageNode("node-2");
    frozen.process().suspend();
    try {
      Eventually.await(
          Duration.ofSeconds(120),
          "the master's /status says node-2 is silent",
          () -> node2().silent(),
          () -> "node-2 at the master: " + node2());
      assertThat(node2().lastHeartbeatMillisAgo()).isGreaterThan(3_000);
      assertThat(node2().state()).isEqualTo("ALIVE");
      assertThat(pool.masterAdmin().text("/metrics"))
          .contains("kvpool_node_silent{node=\"node-2\"} 1");
      work.run();
    } finally {
      frozen.process().resume();
    }
    Eventually.await(
        Duration.ofSeconds(120),
        "node-2 heard from again",
        () -> !node2().silent(),
        () -> "node-2 at the master: " + node2());
  }

  private MasterStatus.NodeStatus node2() {
    return pool.masterAdmin().masterStatus().nodes().stream()
        .filter(n -> n.id().equals("node-2"))
        .findFirst()
        .orElseThrow();
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
    return client("it-frozen-reader", metrics);
  }

  private KvPoolClient client(String id, PrometheusRegistry metrics) {
    return KvPoolClient.connect(
        ClientConfig.builder()
            .master(pool.pool().masterAddress())
            .clientId(id)
            // the client remembers the frozen node for the whole test, however slow the machine
            .failedNodeMemory(Duration.ofSeconds(300))
            .timeout(EXCHANGE_TIMEOUT)
            .operationTimeout(Duration.ofSeconds(300))
            .metrics(metrics)
            .build());
  }

  private static void assertWhole(Map<String, ByteBuffer> got, Map<String, Long> crc) {
    assertThat(got.keySet()).containsExactlyInAnyOrderElementsOf(crc.keySet());
    got.forEach((k, v) -> assertThat(Values.crc(v)).as("bytes of %s", k).isEqualTo(crc.get(k)));
  }
}
