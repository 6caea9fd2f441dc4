package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One deadline per call, retries included (issues 29 and 31): a batch whose every put keeps failing
 * ends within one operation timeout, not one per key. The storage nodes are stopped while the
 * master still counts them ALIVE (a long node TTL), so each round's writes fail with a retryable
 * error and the puts are started again until the deadline. Real master, real storage nodes, the
 * real client, on loopback.
 */
class OperationDeadlineTest {
  private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(3);
  private static final int KEYS = 6;

  private Master master;
  private final List<StorageNode> nodes = new ArrayList<>();
  private KvPoolClient client;

  @BeforeEach
  void startPool() throws Exception {
    MasterConfig config =
        MasterConfig.defaults("deadline-pool")
            .withTtls(Duration.ofMinutes(5), Duration.ofSeconds(1));
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    for (int i = 0; i < 2; i++) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(master.rpcEndpoint(), "node-" + i, "127.0.0.1", 16L << 20, 1)
                      .withHeartbeat(Duration.ofMillis(200)))
              .start(Duration.ofSeconds(10)));
    }
    client =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .clientId("deadline")
                .timeout(Duration.ofSeconds(2))
                .operationTimeout(OPERATION_TIMEOUT)
                .build());
  }

  @AfterEach
  void stopPool() {
    client.close();
    nodes.forEach(StorageNode::close);
    master.close();
  }

  private static ByteBuffer value() {
    ByteBuffer b = ByteBuffer.allocateDirect(4096);
    while (b.hasRemaining()) {
      b.put((byte) b.position());
    }
    return b.flip();
  }

  @Test
  void aBatchOfPutsThatKeepFailingEndsWithinOneOperationTimeoutWithAFailurePerKey() {
    nodes.forEach(
        StorageNode
            ::close); // the master still counts them ALIVE: every write is refused a connection
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      values.put("deadline/" + i, value());
    }
    long started = System.nanoTime();
    BatchResult result = client.putBatch(values, 2);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(result.stored()).isEmpty();
    assertThat(result.failures()).containsOnlyKeys(values.keySet());
    assertThat(result.failures().values())
        .allSatisfy(e -> assertThat(e).isInstanceOf(ConnectionFailedException.class));
    // one deadline for the whole batch: a key after another with deadlines of their own took KEYS +
    // 1 timeouts
    assertThat(took)
        .as("a batch of %d keys took %s", KEYS, took)
        .isLessThan(OPERATION_TIMEOUT.multipliedBy(3));
  }

  /**
   * Every key names a put another writer started and left (PUT_IN_PROGRESS, retryable until that
   * put expires, 30 s later): the batch retries them together until its deadline, then reports each
   * key's refusal.
   */
  @Test
  void aBatchRetriesRefusedKeysTogetherUntilItsOneDeadline() {
    Map<String, ByteBuffer> values = abandonedPuts("in-progress/");
    long started = System.nanoTime();
    BatchResult result = client.putBatch(values, 2);
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(result.failures()).containsOnlyKeys(values.keySet());
    assertThat(result.failures().values())
        .allSatisfy(e -> assertThat(e.code()).isEqualTo(ErrorCode.PUT_IN_PROGRESS));
    assertThat(took)
        .as("retried until the deadline")
        .isGreaterThanOrEqualTo(OPERATION_TIMEOUT.minusMillis(100));
    assertThat(took)
        .as("and no longer: one deadline, not one per key")
        .isLessThan(OPERATION_TIMEOUT.multipliedBy(3));
  }

  /**
   * The race of ci31: keys refused (PUT_IN_PROGRESS) in a first round, then the master stalls (its
   * metadata lock held) so that the next round's PUT_START is still waiting for its reply when the
   * operation's deadline cuts it. The exchange timeout is longer than the operation's, so only the
   * deadline ends that exchange: each key's failure is still the refusal it had, not the cut
   * exchange, which says nothing about the key. (The client's first pause is 10–20 ms, so the stall
   * normally begins before its second round; one that began in the batch's last pause would cut no
   * exchange, and the test would pass without the race. With the fix undone it failed 4 of 4 runs.)
   */
  @Test
  void aBatchWhoseLastMasterExchangeTheDeadlineCutsKeepsEachKeysRefusal() throws Exception {
    PrometheusRegistry clientMetrics = new PrometheusRegistry();
    Map<String, ByteBuffer> values = abandonedPuts("stalled/");
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    Thread staller =
        new Thread(
            () -> {
              try {
                waitForAnsweredPutStart(clientMetrics);
                synchronized (master.metadata()) {
                  stalled.countDown();
                  done.await(); // the master answers no PUT_START until the batch is over
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "master-staller");
    try (KvPoolClient patient =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .clientId("deadline-cut")
                .timeout(OPERATION_TIMEOUT.multipliedBy(2))
                .operationTimeout(OPERATION_TIMEOUT)
                .metrics(clientMetrics)
                .build())) {
      staller.start();
      BatchResult result;
      try {
        result = patient.putBatch(values, 2);
      } finally {
        done.countDown();
        staller.join(Duration.ofSeconds(30).toMillis());
      }
      assertThat(stalled.getCount()).as("the master was stalled while the batch retried").isZero();
      assertThat(result.failures()).containsOnlyKeys(values.keySet());
      assertThat(result.failures().values())
          .allSatisfy(e -> assertThat(e.code()).isEqualTo(ErrorCode.PUT_IN_PROGRESS));
    }
  }

  /**
   * {@link #KEYS} values to put, each under a key whose put another writer started and left at the
   * master (PUT_IN_PROGRESS until it expires, 30 s later).
   */
  private Map<String, ByteBuffer> abandonedPuts(String prefix) {
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    List<PutStartItem> abandoned = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      values.put(prefix + i, value());
      abandoned.add(new PutStartItem(prefix + i, 4096, 0, 1, i, List.of()));
    }
    assertThat(master.metadata().putStart(abandoned, 1))
        .allSatisfy(r -> assertThat(r.status()).isEqualTo(ErrorCode.OK));
    return values;
  }

  /** Waits (at most 30 s) until the client has read the master's answer to a PUT_START. */
  private static void waitForAnsweredPutStart(PrometheusRegistry metrics)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (answeredPutStarts(metrics) < 1 && System.nanoTime() < deadline) {
      Thread.sleep(1); // polling an observable condition with a deadline
    }
  }

  private static long answeredPutStarts(PrometheusRegistry metrics) {
    return metrics.scrape().stream()
        .filter(
            m -> m.getMetadata().getPrometheusName().equals("kvpool_client_rpc_duration_seconds"))
        .flatMap(m -> ((HistogramSnapshot) m).getDataPoints().stream())
        .filter(d -> Opcode.PUT_START.name().equals(d.getLabels().get("opcode")))
        .mapToLong(HistogramSnapshot.HistogramDataPointSnapshot::getCount)
        .sum();
  }

  @Test
  void aSinglePutThatKeepsFailingEndsWithinOneOperationTimeout() {
    nodes.forEach(StorageNode::close);
    long started = System.nanoTime();
    assertThatThrownBy(() -> client.put("deadline/single", value(), 2))
        .isInstanceOf(ConnectionFailedException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .isLessThan(OPERATION_TIMEOUT.multipliedBy(3));
  }
}
