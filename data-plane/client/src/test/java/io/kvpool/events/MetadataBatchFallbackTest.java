package io.kvpool.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.master.PoolMetadata;
import io.kvpool.master.ResidentObject;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch whose block metadata for one node passes 16 MiB: the Java client sends that node's writes
 * as pipelined WRITEs instead of one WRITE_BATCH (PROTOCOL.md, "Block metadata on storage nodes"),
 * each WRITE carrying its item's metadata. A real master, two real storage nodes and a real client
 * on loopback; the metadata is checked where only the nodes' copies can bring it: at a new leader
 * that adopts the objects from the nodes' inventories, and in that leader's full announcement, as a
 * real JeroMQ subscriber ({@link EventFollower}) decodes it.
 */
class MetadataBatchFallbackTest {
  private static final String POOL = "fallback-pool";
  private static final String TOPIC = "kv@pool:" + POOL + "@";

  /** Items whose metadata, each at every limit (20,691 bytes encoded), pass 16 MiB on one node. */
  private static final int ITEMS = 840;

  private Master master;
  private final List<StorageNode> nodes = new ArrayList<>();
  private final List<EventFollower> followers = new ArrayList<>();
  private KvPoolClient client;

  @AfterEach
  void stop() {
    followers.forEach(EventFollower::close);
    if (client != null) {
      client.close();
    }
    nodes.forEach(StorageNode::close);
    if (master != null) {
      master.close();
    }
  }

  private static MasterConfig config() {
    return MasterConfig.defaults(POOL)
        .withTtls(Duration.ofSeconds(3), Duration.ofMillis(300))
        .withRecoveryQuietPeriod(Duration.ofMillis(500));
  }

  private Master startMaster(int rpcPort) throws Exception {
    return new Master(
            MasterSettings.local(config(), "127.0.0.1", rpcPort, 0)
                .withEvents(KvEventsConfig.of(POOL, "127.0.0.1", 0, 0, "", "")))
        .start();
  }

  /** Metadata at every limit, its hashes and tokens unique to {@code item}. */
  private static BlockMetadata largest(int item) {
    List<byte[]> hashes = new ArrayList<>();
    for (int h = 0; h < BlockMetadata.MAX_BLOCK_HASHES; h++) {
      hashes.add(ByteBuffer.allocate(BlockMetadata.MAX_HASH_BYTES).putInt(item).putInt(h).array());
    }
    byte[] parent = ByteBuffer.allocate(BlockMetadata.MAX_HASH_BYTES).putInt(-item).array();
    int[] tokens =
        IntStream.range(0, BlockMetadata.MAX_TOKEN_IDS).map(t -> item * 10_000 + t).toArray();
    return new BlockMetadata(false, hashes, parent, tokens, BlockMetadata.MAX_BLOCK_SIZE, 1 + item);
  }

  private static ByteBuffer value(int item) {
    ByteBuffer b = ByteBuffer.allocateDirect(512);
    while (b.hasRemaining()) {
      b.putInt(item);
    }
    return b.flip();
  }

  /** Observations of {@code kvpool_client_rpc_duration_seconds} by opcode. */
  private static Map<String, Long> exchanges(PrometheusRegistry registry) {
    Map<String, Long> out = new HashMap<>();
    for (MetricSnapshot s : registry.scrape()) {
      if (s instanceof HistogramSnapshot h
          && h.getMetadata().getPrometheusName().equals("kvpool_client_rpc_duration_seconds")) {
        h.getDataPoints().forEach(p -> out.put(p.getLabels().get("opcode"), p.getCount()));
      }
    }
    return out;
  }

  @Test
  void aBatchPastSixteenMiBOfMetadataGoesAsWritesAndEveryItemKeepsItsMetadataOnTheNodes()
      throws Exception {
    master = startMaster(0);
    for (int i = 0; i < 2; i++) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(master.rpcEndpoint(), "node-" + i, "127.0.0.1", 16L << 20, 1)
                      .withHeartbeat(Duration.ofMillis(100)))
              .start(Duration.ofSeconds(10)));
    }
    PrometheusRegistry registry = new PrometheusRegistry();
    client =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .clientId("writer")
                .timeout(Duration.ofSeconds(60))
                .metrics(registry)
                .build());
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    Map<String, BlockMetadata> metadata = new LinkedHashMap<>();
    long perNode = 0;
    for (int i = 0; i < ITEMS; i++) {
      values.put("fb/" + i, value(i));
      metadata.put("fb/" + i, largest(i));
      perNode += largest(i).encodedBytes();
    }
    assertThat(perNode).as("metadata each node's writes carry (R=2)").isGreaterThan(16L << 20);

    assertThat(client.putBatch(values, 2, metadata).failures()).isEmpty();
    Map<String, Long> sent = exchanges(registry);
    assertThat(sent)
        .as("exchanges by opcode: each node's writes went as pipelined WRITEs")
        .containsEntry("WRITE", 2L)
        .doesNotContainKey("WRITE_BATCH");
    for (StorageNode n : nodes) {
      assertThat(n.status().objects()).as("replicas on " + n.nodeId()).isEqualTo(ITEMS);
    }

    // a leader that never saw the puts learns each item's metadata from the nodes' inventories only
    int rpcPort = master.rpcEndpoint().port();
    master.close();
    master = startMaster(rpcPort);
    Map<String, BlockMetadata> adopted = awaitAdopted(metadata.keySet());
    assertThat(adopted.keySet()).as("readable at the new leader").isEqualTo(metadata.keySet());
    List<String> without = new ArrayList<>();
    List<String> different = new ArrayList<>();
    metadata.forEach(
        (key, m) -> {
          if (adopted.get(key) == null) {
            without.add(key);
          } else if (!adopted.get(key).equals(m)) {
            different.add(key);
          }
        });
    assertThat(without).as("items the new leader adopted without metadata").isEmpty();
    assertThat(different).as("items adopted with other metadata than put").isEmpty();

    KvEventPublisher publisher = master.events().orElseThrow();
    EventFollower f = new EventFollower(publisher.pubPort(), publisher.replayPort(), TOPIC);
    followers.add(f);
    Set<EventFollower.Stored> announced = new HashSet<>(f.stored);
    List<String> missing = new ArrayList<>();
    metadata.forEach(
        (key, m) -> {
          if (!announced.contains(stored(m))) {
            missing.add(key);
          }
        });
    assertThat(missing)
        .as("items the new leader's announcement (%d BlockStored) lacks", f.stored.size())
        .isEmpty();
  }

  /**
   * The metadata of {@code keys} at the master once every one is readable there (the new leader
   * adopts them as the nodes' inventories arrive), within 60 s.
   */
  private Map<String, BlockMetadata> awaitAdopted(Set<String> keys) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    Map<String, BlockMetadata> out = new HashMap<>();
    while (System.currentTimeMillis() < deadline) {
      PoolMetadata m = master.metadata();
      out.clear();
      if (m != null) {
        for (ResidentObject o : m.residents()) {
          if (keys.contains(o.key())) {
            out.put(o.key(), o.metadata());
          }
        }
        if (out.size() == keys.size() && !out.containsValue(null)) {
          return out;
        }
      }
      Thread.sleep(20); // the nodes' inventories have not all arrived yet: look again
    }
    return out; // the caller's assertions name what is missing
  }

  private static EventFollower.Stored stored(BlockMetadata m) {
    return new EventFollower.Stored(
        m.blockHashes().stream().map(EventFollower::hex).toList(),
        EventFollower.hex(m.parentBlockHash()),
        IntStream.of(m.tokenIds()).mapToObj(t -> (long) t).toList(),
        m.blockSize(),
        (long) m.loraId(),
        "pool:" + POOL);
  }
}
