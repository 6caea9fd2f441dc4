package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.LocalSecrets;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.TlsContext;
import io.kvpool.security.PoolSecrets;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Gets served by sendfile from a storage node's memory files, through the real client against a
 * real master and node on loopback: every value comes back byte for byte (the client checks its
 * CRC32C too), whatever its size and however its range sits on the pages (copied heads and tails,
 * sent middles); small replies, and every reply inside TLS, are copied instead; {@code
 * --read-serving copy} copies all.
 */
class ZeroCopyReadsTest {
  private static final Duration T = Duration.ofSeconds(30);

  /** Sizes around the page and the 256 KiB threshold, and values spanning many pages. */
  private static final int[] SIZES = {
    1, 4095, 4097, (256 << 10) - 1, 256 << 10, (256 << 10) + 13, (1 << 20) + 7, 3 << 20
  };

  private Master master;
  private StorageNode node;
  private KvPoolClient client;
  private Path memoryDir;

  @AfterEach
  void stop() throws IOException {
    if (client != null) {
      client.close();
    }
    if (node != null) {
      node.close();
    }
    if (master != null) {
      master.close();
    }
    if (memoryDir != null) {
      try (Stream<Path> files = Files.walk(memoryDir)) {
        for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  @Test
  void largeGetsComeFromTheFilesByteForByte() throws Exception {
    start(ReadServing.SENDFILE, false);
    Map<String, ByteBuffer> values = putAll();
    long large = values.values().stream().filter(ZeroCopyReadsTest::large).count();
    for (Map.Entry<String, ByteBuffer> e : values.entrySet()) {
      assertThat(client.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
    }
    assertThat(fromFiles()).as("READ replies sent from the files").isEqualTo(large);
    Map<String, ByteBuffer> batch = client.getBatch(new ArrayList<>(values.keySet()));
    for (Map.Entry<String, ByteBuffer> e : values.entrySet()) {
      assertThat(batch.get(e.getKey())).as("batch " + e.getKey()).isEqualTo(e.getValue());
    }
    assertThat(fromFiles()).as("and the READ_BATCH reply").isEqualTo(large + 1);
  }

  @Test
  void readsOverwrittenRangesAfterTheirPagesWereReplaced() throws Exception {
    start(ReadServing.SENDFILE, false);
    // the node holds 16 MiB: each round's values take the ranges the previous round's left
    for (int round = 0; round < 4; round++) {
      ByteBuffer value = random(5 << 20, round);
      client.put("v", value, 1);
      assertThat(client.get("v")).as("round %d", round).isEqualTo(value);
      removeOnceTheLeaseIsOver("v");
    }
    assertThat(fromFiles()).isEqualTo(4);
  }

  @Test
  void tlsConnectionsAreCopied() throws Exception {
    start(ReadServing.SENDFILE, true);
    Map<String, ByteBuffer> values = putAll();
    for (Map.Entry<String, ByteBuffer> e : values.entrySet()) {
      assertThat(client.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
    }
    assertThat(client.getBatch(new ArrayList<>(values.keySet()))).isEqualTo(values);
    assertThat(fromFiles()).as("replies sent from files inside TLS").isZero();
  }

  @Test
  void copyServingNeverSendsFromFiles() throws Exception {
    start(ReadServing.COPY, false);
    Map<String, ByteBuffer> values = putAll();
    for (Map.Entry<String, ByteBuffer> e : values.entrySet()) {
      assertThat(client.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
    }
    assertThat(fromFiles()).isZero();
  }

  private void removeOnceTheLeaseIsOver(String key) throws InterruptedException {
    long deadline = System.nanoTime() + T.toNanos();
    while (true) {
      try {
        assertThat(client.remove(key)).isTrue();
        return;
      } catch (KvPoolException leased) {
        assertThat(leased.getMessage()).contains("read lease");
        assertThat(System.nanoTime()).as("%s still leased after %s", key, T).isLessThan(deadline);
        Thread.sleep(50); // polling an observable condition with a deadline
      }
    }
  }

  private static boolean large(ByteBuffer value) {
    return value.remaining() >= ReadServing.MIN_FILE_REPLY_BYTES;
  }

  private Map<String, ByteBuffer> putAll() {
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    for (int i = 0; i < SIZES.length; i++) {
      ByteBuffer v = random(SIZES[i], 100 + i);
      values.put("k" + i + "-" + SIZES[i], v);
      client.put("k" + i + "-" + SIZES[i], v, 1);
    }
    return values;
  }

  private void start(ReadServing serving, boolean tls) throws Exception {
    PoolSecrets secrets = PoolSecrets.none();
    ClientConfig.Builder clientConfig = ClientConfig.builder();
    if (tls) {
      Path keys = LocalSecrets.keys();
      Path tlsDir = LocalSecrets.tls();
      secrets = PoolSecrets.fromDirectories(keys.toString(), tlsDir.toString());
      clientConfig
          .poolKey(PoolKey.read(keys.resolve("client-key")))
          .tls(TlsContext.trusting(tlsDir.resolve("ca.crt")));
    }
    master =
        new Master(
                new MasterSettings(
                    MasterConfig.defaults("zero-copy")
                        .withTtls(Duration.ofSeconds(10), Duration.ofSeconds(1)),
                    "127.0.0.1",
                    0,
                    0,
                    "127.0.0.1",
                    secrets,
                    Optional.empty()))
            .start();
    memoryDir = Files.createTempDirectory(Path.of("/dev/shm"), "kvpool-zero-copy-");
    node =
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), "n1", "127.0.0.1", 16L << 20, 1)
                    .withHeartbeat(Duration.ofMillis(200))
                    .withSecrets(secrets)
                    .withMemoryDir(memoryDir)
                    .withSegmentUse(new StorageConfig.SegmentUse(true, serving)))
            .start(T);
    client = KvPoolClient.connect(clientConfig.master(master.rpcEndpoint()).build());
  }

  private long fromFiles() throws Exception {
    String body =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + node.adminEndpoint() + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    Matcher m =
        Pattern.compile("(?m)^kvpool_storage_replies_from_files_total (\\S+)$").matcher(body);
    assertThat(m.find()).as("the metric in %s", body).isTrue();
    return (long) Double.parseDouble(m.group(1));
  }

  private static ByteBuffer random(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return ByteBuffer.allocateDirect(n).put(b).flip();
  }
}
