package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A real master and three real storage nodes on loopback sockets, in this JVM. */
class LoopbackPoolTest {
  private static final long NODE_MEMORY = 16L << 20;

  private Master master;
  private final List<StorageNode> nodes = new ArrayList<>();
  private KvPoolClient client;

  @BeforeEach
  void startPool() throws Exception {
    MasterConfig config =
        MasterConfig.defaults("test-pool").withTtls(Duration.ofMillis(1500), Duration.ofSeconds(1));
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    for (int i = 0; i < 3; i++) {
      nodes.add(startNode("node-" + i));
    }
    client =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .clientId("test")
                .timeout(Duration.ofSeconds(10))
                .build());
  }

  private StorageNode startNode(String id) throws Exception {
    StorageConfig sc =
        StorageConfig.local(master.rpcEndpoint(), id, "127.0.0.1", NODE_MEMORY, 2)
            .withHeartbeat(Duration.ofMillis(200));
    return new StorageNode(sc).start(Duration.ofSeconds(10));
  }

  @AfterEach
  void stopPool() {
    if (client != null) {
      client.close();
    }
    nodes.forEach(StorageNode::close);
    master.close();
  }

  private static ByteBuffer randomValue(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    ByteBuffer b = ByteBuffer.allocateDirect(size);
    b.put(bytes).flip();
    return b;
  }

  @Test
  void putThenGetRoundTripsBytesThroughStorageNodes() {
    ByteBuffer value = randomValue(1 << 20, 1);
    client.put("prefix/abc", value, 2);

    assertThat(value.position()).isZero();
    assertThat(client.exists("prefix/abc")).isTrue();
    assertThat(client.get("prefix/abc")).isEqualTo(value);

    ByteBuffer dst = ByteBuffer.allocateDirect(2 << 20);
    assertThat(client.get("prefix/abc", dst)).isEqualTo(1 << 20);
    dst.flip();
    assertThat(dst).isEqualTo(value);

    PoolStats stats = client.stats();
    assertThat(stats.nodes()).isEqualTo(3);
    assertThat(stats.objects()).isEqualTo(1);
    assertThat(stats.usedBytes()).isEqualTo(2L << 20);
    assertThat(client.serverVersion()).isEqualTo(VersionInfo.CURRENT);
  }

  @Test
  void smallValuesRoundTripAndEmptyOnesAreRefused() {
    assertThatThrownBy(() -> client.put("empty", ByteBuffer.allocateDirect(0), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty");
    client.put("tiny", randomValue(3, 2), 3);
    assertThat(client.get("tiny")).isEqualTo(randomValue(3, 2));
  }

  @Test
  void missingKeysAndBufferTooSmallAreTypedErrors() {
    assertThatThrownBy(() -> client.get("nope"))
        .isInstanceOf(ObjectNotFoundException.class)
        .hasMessageContaining("nope");
    client.put("k", randomValue(1000, 3), 1);
    assertThatThrownBy(() -> client.get("k", ByteBuffer.allocateDirect(10)))
        .isInstanceOf(BufferTooSmallException.class)
        .hasMessageContaining("1000");
    // the lookup above granted a read lease: removing now is refused, not silently ignored
    assertThatThrownBy(() -> client.remove("k"))
        .isInstanceOf(KvPoolException.class)
        .hasMessageContaining("lease");
  }

  @Test
  void removeFreesSpaceAndRemoveAllEmptiesThePool() {
    client.put("a", randomValue(4096, 4), 1);
    client.put("b", randomValue(4096, 5), 1);
    assertThat(client.remove("a")).isTrue();
    assertThat(client.remove("a")).isFalse();
    assertThat(client.exists("a")).isFalse();
    assertThat(client.removeAll()).isEqualTo(1);
    assertThat(client.stats().usedBytes()).isZero();
  }

  @Test
  void putOfExistingKeyKeepsTheStoredValue() {
    client.put("same", randomValue(100, 6), 1);
    client.put("same", randomValue(100, 7), 1);
    assertThat(client.get("same")).isEqualTo(randomValue(100, 6));
  }

  @Test
  void batchesUseOneRoundTripPerPhase() {
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    for (int i = 0; i < 20; i++) {
      values.put("batch/" + i, randomValue(10_000 + i, i));
    }
    BatchResult result = client.putBatch(values, 2);
    assertThat(result.allSucceeded()).isTrue();
    assertThat(result.stored()).hasSize(20);

    List<String> keys = new ArrayList<>(values.keySet());
    keys.add("batch/missing");
    Map<String, ByteBuffer> got = client.getBatch(keys);
    assertThat(got).hasSize(20).doesNotContainKey("batch/missing");
    values.forEach((k, v) -> assertThat(got.get(k)).isEqualTo(v));
  }

  @Test
  void valueLargerThanANodeIsRefusedWithNoSpace() {
    ByteBuffer big = ByteBuffer.allocateDirect((int) NODE_MEMORY + (1 << 20));
    assertThatThrownBy(() -> client.put("big", big, 1))
        .isInstanceOf(NoSpaceException.class)
        .hasMessageContaining("fits on only 0 of the 3 ALIVE nodes");
    assertThat(client.exists("big")).isFalse();
  }

  @Test
  void valueLargerThanASegmentIsSplitIntoSlicesAndReassembled() throws Exception {
    ByteBuffer value = randomValue(12 << 20, 11); // segments are 8 MiB
    client.put("sliced", value, 2);
    ReplicaListResult r = master.metadata().getReplicas(List.of("sliced")).get(0);
    assertThat(r.replicas()).allSatisfy(loc -> assertThat(loc.slices()).hasSizeGreaterThan(1));
    assertThat(client.get("sliced")).isEqualTo(value);

    // a sliced replica also survives the loss of its node: the survivor copies it slice by slice
    String holder = r.replicas().get(0).nodeId();
    StorageNode victim =
        nodes.stream().filter(n -> n.nodeId().equals(holder)).findFirst().orElseThrow();
    nodes.remove(victim);
    victim.close();
    long deadline = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < deadline && master.counters().repairs() == 0) {
      Thread.sleep(100);
    }
    assertThat(master.counters().repairs()).isEqualTo(1);
    assertThat(master.metadata().getReplicas(List.of("sliced")).get(0).replicas())
        .extracting(loc -> loc.nodeId())
        .hasSize(2)
        .doesNotContain(holder);
    for (int i = 0; i < 4; i++) {
      assertThat(client.get("sliced")).isEqualTo(value);
    }
  }

  @Test
  void versionSkewedClientIsRefusedNamingBothVersions() throws Exception {
    ClientConfig skewed =
        ClientConfig.builder()
            .master(master.rpcEndpoint())
            .clientId("old-client")
            .advertisedVersion(new VersionInfo("0.9.0", 3, 0))
            .build();
    assertThatThrownBy(() -> KvPoolClient.connect(skewed))
        .isInstanceOf(VersionMismatchException.class)
        .hasMessageContaining(VersionInfo.CURRENT.release())
        .hasMessageContaining(VersionInfo.CURRENT.protocol())
        .hasMessageContaining("0.9.0")
        .hasMessageContaining("3.0");
    assertThat(master.status().counters().versionMismatches()).isEqualTo(1);
  }

  @Test
  void aPutIsCommittedByItsNodesAndAnotherClientFindsItAsSoonAsItReturns() throws Exception {
    try (KvPoolClient reader =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .clientId("reader")
                .locationCacheEntries(0)
                .build())) {
      for (int i = 0; i < 200; i++) {
        ByteBuffer value = randomValue(4096 + i, i);
        client.put("committed/" + i, value, 2);
        assertThat(reader.exists("committed/" + i)).as("exists right after put " + i).isTrue();
        assertThat(reader.get("committed/" + i)).as("value right after put " + i).isEqualTo(value);
      }
      Map<String, ByteBuffer> batch = new LinkedHashMap<>();
      for (int i = 0; i < 20; i++) {
        batch.put("committed/batch/" + i, randomValue(1000 + i, 1000 + i));
      }
      assertThat(client.putBatch(batch, 2).stored()).hasSize(20);
      assertThat(reader.getBatch(List.copyOf(batch.keySet()))).isEqualTo(batch);
    }
    assertThat(client.putCommitStats())
        .as("one master exchange per put: no PUT_END")
        .isEqualTo(new PutCommitStats(220, 0));
  }

  /**
   * A client one minor older still puts; its nodes commit for it only from protocol 2.2 on (else it
   * ends them).
   */
  @Test
  void aClientOneMinorOlderStillHasItsPutsCommittedByTheNodes() throws Exception {
    // protocol 2.2 clients of a 2.3 pool: nodes commit for them (a 2.1 client is two minors apart,
    // refused)
    ClientConfig older =
        ClientConfig.builder()
            .master(master.rpcEndpoint())
            .advertisedVersion(
                new VersionInfo(
                    VersionInfo.CURRENT.release(),
                    VersionInfo.PROTOCOL_MAJOR,
                    VersionInfo.PROTOCOL_MINOR - 1))
            .build();
    try (KvPoolClient c = KvPoolClient.connect(older)) {
      c.put("ended/one", randomValue(4096, 3), 2);
      assertThat(c.putCommitStats()).isEqualTo(new PutCommitStats(1, 0));
    }
    assertThat(client.get("ended/one")).isEqualTo(randomValue(4096, 3));
  }

  @Test
  void minorVersionOneApartIsAccepted() throws Exception {
    ClientConfig newer =
        ClientConfig.builder()
            .master(master.rpcEndpoint())
            .advertisedVersion(
                new VersionInfo(
                    "0.3.0", VersionInfo.PROTOCOL_MAJOR, VersionInfo.PROTOCOL_MINOR + 1))
            .build();
    try (KvPoolClient c = KvPoolClient.connect(newer)) {
      c.put("from-newer", randomValue(64, 8), 1);
      assertThat(client.get("from-newer")).isEqualTo(randomValue(64, 8));
    }
  }

  @Test
  void wrongPoolIsRefused() throws Exception {
    ClientConfig other =
        ClientConfig.builder().master(master.rpcEndpoint()).poolId("other-pool").build();
    assertThatThrownBy(() -> KvPoolClient.connect(other))
        .isInstanceOf(PoolMismatchException.class)
        .hasMessageContaining("other-pool")
        .hasMessageContaining("test-pool")
        .satisfies(
            e -> assertThat(((KvPoolException) e).code()).isEqualTo(ErrorCode.POOL_MISMATCH));
  }

  @Test
  void deadNodesReplicasAreRepairedFromASurvivor() throws Exception {
    ByteBuffer value = randomValue(256 << 10, 9);
    client.put("survivor", value, 2);
    // stop one node: after the TTL the master drops its replicas and copies the object to the third
    // node
    String holder =
        master.metadata().getReplicas(List.of("survivor")).get(0).replicas().get(0).nodeId();
    StorageNode victim =
        nodes.stream().filter(n -> n.nodeId().equals(holder)).findFirst().orElseThrow();
    nodes.remove(victim);
    victim.close();
    long deadline = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < deadline && master.counters().repairs() == 0) {
      Thread.sleep(100);
    }
    assertThat(master.counters().repairs())
        .as("replicas copied to the third node")
        .isGreaterThan(0);
    for (int i = 0; i < 5; i++) {
      assertThat(client.get("survivor")).isEqualTo(value);
    }
    assertThat(client.stats().nodes()).isEqualTo(2);
    assertThat(master.metadata().getReplicas(List.of("survivor")).get(0).replicas())
        .extracting(r -> r.nodeId())
        .hasSize(2)
        .doesNotContain(holder);
  }

  @Test
  void drainedNodeEndsUpEmpty() throws Exception {
    for (int i = 0; i < 12; i++) {
      client.put("drain/" + i, randomValue(8192, i), 1);
    }
    String drained = nodes.get(0).nodeId();
    master.metadata().drain(drained);
    long deadline = System.currentTimeMillis() + 10_000;
    while (System.currentTimeMillis() < deadline && nodeUsed(drained) > 0) {
      Thread.sleep(100);
    }
    assertThat(nodeUsed(drained)).isZero();
    for (int i = 0; i < 12; i++) {
      assertThat(client.get("drain/" + i)).isEqualTo(randomValue(8192, i));
    }
  }

  @Test
  void aDrainCopiesOverReusedConnectionsNotOnePerValue() throws Exception {
    int values = 60;
    for (int i = 0; i < values; i++) {
      client.put("reuse/" + i, randomValue(8192, i), 1);
    }
    StorageNode drained = nodes.get(0);
    long moved =
        master.metadata().snapshot().nodes().stream()
            .filter(n -> n.id().equals(drained.nodeId()))
            .findFirst()
            .orElseThrow()
            .replicas();
    assertThat(moved).as("objects on the drained node").isGreaterThan(12);
    master.metadata().drain(drained.nodeId());
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline && nodeUsed(drained.nodeId()) > 0) {
      Thread.sleep(100);
    }
    assertThat(nodeUsed(drained.nodeId())).isZero();
    // the master's copiers (4) and the drained node's copies each keep their connections for reuse
    assertThat(sessionsAccepted(drained, "master"))
        .as("sessions the master opened to order %d copies", moved)
        .isLessThanOrEqualTo(8);
    for (StorageNode target : nodes.subList(1, nodes.size())) {
      assertThat(sessionsAccepted(target, "storage"))
          .as("sessions the drained node opened to %s", target.nodeId())
          .isLessThanOrEqualTo(8);
    }
    for (int i = 0; i < values; i++) {
      assertThat(client.get("reuse/" + i)).isEqualTo(randomValue(8192, i));
    }
  }

  @Test
  void aNodeLossRepairsOverReusedConnectionsNotOnePerValue() throws Exception {
    int values = 300;
    for (int i = 0; i < values; i++) {
      client.put("loss/" + i, randomValue(8192, i), 2);
    }
    StorageNode victim = nodes.get(0);
    long lost =
        master.metadata().snapshot().nodes().stream()
            .filter(n -> n.id().equals(victim.nodeId()))
            .findFirst()
            .orElseThrow()
            .replicas();
    assertThat(lost).as("replicas on the node to lose").isGreaterThan(100);
    List<StorageNode> survivors = List.copyOf(nodes.subList(1, nodes.size()));
    Map<StorageNode, Double> storageBefore = new LinkedHashMap<>();
    Map<StorageNode, Double> masterBefore = new LinkedHashMap<>();
    for (StorageNode n : survivors) {
      storageBefore.put(n, sessionsAccepted(n, "storage"));
      masterBefore.put(n, sessionsAccepted(n, "master"));
    }
    long repairsBefore = master.counters().repairs();
    nodes.remove(victim);
    victim.close(); // silent from now on: declared dead after the TTL, its replicas repaired
    long deadline = System.currentTimeMillis() + 120_000;
    while (System.currentTimeMillis() < deadline
        && master.counters().repairs() - repairsBefore < lost) {
      Thread.sleep(100);
    }
    assertThat(master.counters().repairs() - repairsBefore)
        .as("repairs of the %d lost replicas", lost)
        .isGreaterThanOrEqualTo(lost);
    // each survivor is both a source and the only target: the copies to it come over the
    // other survivor's kept connections (at most one per master copier), not one per value
    for (StorageNode n : survivors) {
      System.out.printf(
          "node loss: %d replicas repaired; %s accepted %.0f copy sessions and %.0f from the master%n",
          lost,
          n.nodeId(),
          sessionsAccepted(n, "storage") - storageBefore.get(n),
          sessionsAccepted(n, "master") - masterBefore.get(n));
    }
    for (StorageNode n : survivors) {
      assertThat(sessionsAccepted(n, "storage") - storageBefore.get(n))
          .as("copy sessions %s accepted for about %d repairs", n.nodeId(), lost / 2)
          .isLessThanOrEqualTo(8);
      assertThat(sessionsAccepted(n, "master") - masterBefore.get(n))
          .as("sessions the master opened to %s to order its copies", n.nodeId())
          .isLessThanOrEqualTo(8);
    }
    for (int i = 0; i < values; i++) {
      assertThat(client.get("loss/" + i)).isEqualTo(randomValue(8192, i));
    }
  }

  private static double sessionsAccepted(StorageNode node, String role) throws Exception {
    return AdminMetrics.value(
            AdminMetrics.scrape(node.adminEndpoint()),
            "kvpool_sessions_accepted_total{role=\"" + role + "\"}")
        .orElse(0);
  }

  private long nodeUsed(String id) {
    return master.metadata().snapshot().nodes().stream()
        .filter(n -> n.id().equals(id))
        .findFirst()
        .orElseThrow()
        .usedBytes();
  }

  @Test
  void storageNodeEndpointIsReachableAndReportsReady() throws Exception {
    HostPort admin = nodes.get(0).adminEndpoint();
    var http = java.net.http.HttpClient.newHttpClient();
    var resp =
        http.send(
            java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://" + admin + "/ready"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(resp.statusCode()).isEqualTo(200);
  }

  @Test
  void storageNodeStartedForThisPoolRegistersAndStoresValues() throws Exception {
    StorageNode named =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "named", "127.0.0.1", NODE_MEMORY, 1)
                    .withHeartbeat(Duration.ofMillis(200))
                    .withPoolId("test-pool"))
            .start(Duration.ofSeconds(10));
    nodes.add(named);
    assertThat(master.metadata().snapshot().nodes()).anyMatch(n -> n.id().equals("named"));
    for (int i = 0; i < 8; i++) {
      client.put("named/" + i, randomValue(4096, i), 4); // four replicas: one is on the named node
      assertThat(client.get("named/" + i)).isEqualTo(randomValue(4096, i));
    }
  }

  @Test
  void storageNodeStartedForAnotherPoolIsRefusedAtStart() throws Exception {
    StorageNode stranger =
        new StorageNode(
            StorageConfig.local(master.rpcEndpoint(), "stranger", "127.0.0.1", NODE_MEMORY, 1)
                .withHeartbeat(Duration.ofMillis(200))
                .withPoolId("other-pool"));
    try {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> stranger.start(Duration.ofSeconds(30)))
          .isInstanceOf(java.io.IOException.class)
          .hasMessageContaining("stranger")
          .hasMessageContaining("'other-pool'")
          .hasMessageContaining("'test-pool'");
      assertThat(Duration.ofNanos(System.nanoTime() - t0))
          .isLessThan(Duration.ofSeconds(10)); // no wait for timeout
      assertThat(master.metadata().snapshot().nodes()).noneMatch(n -> n.id().equals("stranger"));
    } finally {
      stranger.close();
    }
  }

  @Test
  void threadsSharingOneClientEachGetTheirOwnValues() throws Exception {
    int threads = 6;
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      List<java.util.concurrent.Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 30; i++) {
                    String key = "shared/" + thread + "/" + i;
                    client.put(key, randomValue(16 << 10, thread * 1000L + i), 2);
                    assertThat(client.get(key))
                        .isEqualTo(randomValue(16 << 10, thread * 1000L + i));
                    assertThat(client.exists(key)).isTrue();
                  }
                  return null;
                }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get(60, java.util.concurrent.TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(client.stats().objects()).isEqualTo(threads * 30L);
  }
}
