package io.kvpool.storage;

import static io.kvpool.storage.Conditions.eventually;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.StorageStatus;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.Slice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A storage node whose segments are memory files, replaced by a new process of the same node id on
 * the same machine: it adopts what verifies and re-registers with it, so the master copies nothing;
 * what does not verify, and everything after an unclean stop, is left out. Values with one replica
 * show it best: only a warm restart keeps them.
 */
class WarmRestartTest {
  private static final Duration T = Duration.ofSeconds(20);
  private static final long NODE_MEMORY = 16L << 20;

  private Path memoryDir;
  private Master master;
  private StorageNode warm;
  private StorageNode other;
  private KvPoolClient client;

  @BeforeEach
  void start() throws Exception {
    // tmpfs where there is one, as in a pod: the memory files are what a replacement process maps
    // again
    Path shm = Path.of("/dev/shm");
    memoryDir =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? Files.createTempDirectory(shm, "kvpool-warm-")
            : Files.createTempDirectory("kvpool-warm-");
    MasterConfig config =
        MasterConfig.defaults("warm").withTtls(Duration.ofSeconds(10), Duration.ofSeconds(1));
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    warm = startWarm();
    other =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "other", "127.0.0.1", NODE_MEMORY, 1)
                    .withHeartbeat(Duration.ofMillis(200)))
            .start(T);
    client =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .clientId("warm-test")
                .timeout(T)
                .build());
  }

  private StorageNode startWarm() throws Exception {
    return new StorageNode(
            StorageConfig.local(master.rpcEndpoint(), "warm", "127.0.0.1", NODE_MEMORY, 2)
                .withHeartbeat(Duration.ofMillis(200))
                .withMemoryDir(memoryDir))
        .start(T);
  }

  @AfterEach
  void stop() throws IOException {
    client.close();
    warm.close();
    other.close();
    master.close();
    Folders.delete(memoryDir);
  }

  @Test
  void aCleanStopLeavesReplicasThatTheNextProcessAdoptsWithoutCopying() throws Exception {
    assertThat(warm.warmStart().memoryFiles()).isTrue();
    assertThat(warm.warmStart().taken()).isFalse();
    Map<String, ByteBuffer> values = putValues(40);
    long held = replicasOn("warm");
    assertThat(held).isPositive();
    long repairsBefore = master.status().counters().repairs();

    warm.close();
    assertThat(Files.exists(memoryDir.resolve("warm").resolve(InventoryFile.NAME))).isTrue();
    warm = startWarm();

    StorageStatus.WarmStart start = warm.warmStart();
    assertThat(start.taken()).isTrue();
    assertThat(start.objects()).isEqualTo(held);
    assertThat(start.refused()).isZero();
    assertThat(warm.status().objects()).isEqualTo(held);
    // consumed: a crash from now on must not find this inventory
    assertThat(Files.exists(memoryDir.resolve("warm").resolve(InventoryFile.NAME))).isFalse();
    eventually(T, () -> assertThat(replicasOn("warm")).isEqualTo(held));
    assertReadable(values); // the values with one replica on this node included
    assertThat(master.status().counters().repairs()).isEqualTo(repairsBefore);
  }

  @Test
  void aReplicaWhoseBytesChangedIsRefusedAndTheRestAdopted() throws Exception {
    Map<String, ByteBuffer> values = putValues(20);
    long held = replicasOn("warm");
    warm.close();
    // change one byte of the first replica the inventory lists
    Slice first =
        InventoryFile.read(memoryDir.resolve("warm").resolve(InventoryFile.NAME))
            .objects()
            .get(0)
            .slices()
            .get(0);
    Path segment = memoryDir.resolve("warm").resolve("segment-" + first.segmentId() + ".mem");
    try (FileChannel ch =
        FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, first.offset());
      b.put(0, (byte) (b.get(0) ^ 0xff)).rewind();
      ch.write(b, first.offset());
    }
    warm = startWarm();
    StorageStatus.WarmStart start = warm.warmStart();
    assertThat(start.taken()).isTrue();
    assertThat(start.refused()).isEqualTo(1);
    assertThat(start.objects()).isEqualTo(held - 1);
    assertThat(start.message()).contains("checksum mismatch");
    // the changed replica is not served: every value still reads back intact from the other
    // replicas
    eventually(T, () -> assertThat(replicasOn("warm")).isEqualTo(held - 1));
    for (Map.Entry<String, ByteBuffer> e : values.entrySet()) {
      if (e.getKey().startsWith("r2-")) {
        assertThat(client.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
  }

  @Test
  void withoutAnInventoryAfterAnUncleanStopTheNodeStartsEmpty() throws Exception {
    putValues(10);
    warm.close();
    Files.delete(
        memoryDir
            .resolve("warm")
            .resolve(InventoryFile.NAME)); // as after kill -9: none was written
    warm = startWarm();
    assertThat(warm.warmStart().taken()).isFalse();
    assertThat(warm.warmStart().message()).contains("did not stop cleanly");
    assertThat(warm.status().objects()).isZero();
  }

  @Test
  void anotherSegmentLayoutStartsEmpty() throws Exception {
    putValues(10);
    warm.close();
    warm =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "warm", "127.0.0.1", NODE_MEMORY, 4)
                    .withHeartbeat(Duration.ofMillis(200))
                    .withMemoryDir(memoryDir))
            .start(T);
    assertThat(warm.warmStart().taken()).isFalse();
    assertThat(warm.warmStart().message()).contains("describes segments of");
    assertThat(warm.status().objects()).isZero();
  }

  @Test
  void aDrainedNodeRemovesItsMemoryFilesWhenItStops() throws Exception {
    putValues(10);
    try (StorageNode third =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "third", "127.0.0.1", NODE_MEMORY, 1)
                    .withHeartbeat(Duration.ofMillis(200)))
            .start(T)) {
      master.metadata().drain("warm"); // two-replica values need two other nodes
      eventually(T, () -> assertThat(warm.status().objects()).isZero());
      warm.close();
    }
    assertThat(Files.exists(memoryDir.resolve("warm"))).isFalse();
    warm = startWarm();
    assertThat(warm.warmStart().message()).contains("no memory files yet");
  }

  /** Half the values with one replica (spread over both nodes), half with two. */
  private Map<String, ByteBuffer> putValues(int n) {
    Random random = new Random(7);
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      byte[] bytes = new byte[1 + random.nextInt(100_000)];
      random.nextBytes(bytes);
      ByteBuffer value = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
      String key = (i % 2 == 0 ? "r1-" : "r2-") + i;
      client.put(key, value, i % 2 == 0 ? 1 : 2);
      values.put(key, value);
    }
    return values;
  }

  private void assertReadable(Map<String, ByteBuffer> values) {
    for (Map.Entry<String, ByteBuffer> e : values.entrySet()) {
      assertThat(client.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
    }
  }

  private long replicasOn(String node) {
    return master.status().nodes().stream()
        .filter(n -> n.id().equals(node) && n.state().equals("ALIVE"))
        .mapToLong(MasterStatus.NodeStatus::replicas)
        .sum();
  }
}
