package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.Slice;
import io.kvpool.rpc.ServerLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link StalledReaderTest} against a node whose segments are memory files on tmpfs, so that its
 * replies go by sendfile: the pages a stalled reply left queued on the reader's connection must
 * keep the old object's bytes when the range is written again (they are replaced, not reused).
 */
class StalledReaderFromFilesTest extends StalledReaderTest {
  /** Each node's folder (a test may start a second node): all deleted when the test stops. */
  private final List<Path> memoryDirs = new ArrayList<>();

  @Override
  StorageConfig node(StorageConfig local) {
    Path memoryDir;
    try {
      memoryDir = Files.createTempDirectory(Path.of("/dev/shm"), "kvpool-stalled-");
      memoryDirs.add(memoryDir);
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a folder on /dev/shm", e);
    }
    return local
        .withMemoryDir(memoryDir)
        .withSegmentUse(new StorageConfig.SegmentUse(true, ReadServing.SENDFILE));
  }

  @Override
  int stalledRepliesFromFiles() {
    return 1;
  }

  @Override
  void stopped() throws IOException {
    for (Path dir : memoryDirs) {
      Folders.delete(dir);
    }
    memoryDirs.clear();
  }

  /**
   * A reader that never reads on: the node's write deadline cuts it (a close alone would not wake a
   * sendfile the JDK does not track, so the watchdog shuts the socket's output first), the reply
   * lets its range go, and a new object takes the range at once instead of waiting out the pin.
   */
  @Test
  void aReaderThatNeverReadsIsCutAtTheWriteDeadline() throws Exception {
    node.close();
    node =
        new StorageNode(
                node(
                    StorageConfig.local(master.rpcEndpoint(), "n1", "127.0.0.1", 16L << 20, 1)
                        .withHeartbeat(Duration.ofMillis(200))
                        .withLimits(
                            new ServerLimits(
                                Duration.ofSeconds(10),
                                Duration.ofSeconds(1),
                                Duration.ofSeconds(300),
                                Duration.ofSeconds(1),
                                Duration.ofMillis(50),
                                256,
                                2048,
                                256 << 20))))
            .start(T);
    ByteBuffer old = random(BIG, 7);
    client.put("old", old, 1);
    ReplicaListResult r = replicas("old");
    Slice s = r.replicas().get(0).slices().get(0);
    BodyWriter read = new BodyWriter();
    new ReadRequest(
            "old",
            r.generation(),
            s.segmentId(),
            s.offset(),
            s.length(),
            r.expiresAtMillis(),
            r.replicas().get(0).token())
        .encode(read);
    String cut = "kvpool_connections_closed_total{reason=\"write_timeout\"}";
    try (StalledReader reader = new StalledReader(node.rpcEndpoint())) {
      reader.request(Opcode.READ, read);
      eventually(
          () -> {
            try {
              return metric(cut) >= 1;
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
          });
      assertThat(metric("kvpool_storage_replies_from_files_total")).isEqualTo(1);
      removeOnceTheLeaseIsOver("old");
      ByteBuffer fresh = random(BIG, 8);
      client.put(
          "new", fresh, 1); // its WRITE would wait 10 s and fail while the reply held the pin
      assertThat(client.get("new")).isEqualTo(fresh);
    }
  }
}
