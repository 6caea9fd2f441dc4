package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.MasterStatus;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 28 against a real master process: peers that send malformed or truncated 64 MiB bodies and
 * go away leave the master's body budget whole (it leaked every such body: eight of them emptied it
 * until the master restarted), and while clients hold the whole client budget with stalled bodies,
 * a storage node restarted warm re-registers with an inventory of several hundred KB at once (it
 * waited for room, timed out, and the master declared the node dead).
 */
class BodyBudgetIT {
  private static final int CLIENT_BUDGET = 256 << 20;
  private static final int CONTROL_BUDGET = 64 << 20;

  /**
   * Objects each node holds: with their long keys the node's inventory is about 400 KB, far above
   * 64 KiB.
   */
  private static final int OBJECTS = 1_500;

  private static final Duration GENEROUS = Duration.ofSeconds(120);
  private static final Path MEMORY_DIR = memoryDir();

  /**
   * The master's frame deadline is long, so stalled bodies hold the client budget until the test
   * lets them go.
   */
  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.storageNodes(2)
                  .memoryPerNode("32MiB")
                  .masterOption("--frame-timeout", "600s")
                  .storageOption("--memory-dir", MEMORY_DIR.toString()));

  private final List<SocketChannel> peers = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @AfterEach
  void disconnect() throws IOException {
    timer.shutdownNow();
    for (SocketChannel ch : peers) {
      ch.close();
    }
  }

  @AfterAll
  static void removeMemoryFiles() throws IOException {
    try (Stream<Path> files = Files.walk(MEMORY_DIR)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  @Test
  void brokenBodiesLeaveTheBudgetWholeAndANodeReRegistersWhileClientsHoldAllOfIt()
      throws Exception {
    KvPoolClient client = pool.newClient("it-budget");
    SplittableRandom random = new SplittableRandom(28);
    String padding = "k".repeat(200);
    ByteBuffer first = null;
    for (int from = 0; from < OBJECTS; from += 500) {
      Map<String, ByteBuffer> batch = new LinkedHashMap<>();
      for (int i = from; i < from + 500; i++) {
        batch.put("budget/" + padding + "/" + i, Values.random(1024, random));
      }
      assertThat(client.putBatch(batch, 2).failures()).isEmpty();
      first = first == null ? batch.values().iterator().next() : first;
    }
    HostPort master = HostPort.parse(pool.pool().leaderAddress());

    // eight peers: four malformed 64 MiB bodies sent whole, four cut off after 40 MiB; each then
    // goes away
    for (int i = 0; i < 4; i++) {
      sendAndLeave(master, ProtocolLimits.MAX_BODY_BYTES);
      sendAndLeave(master, 40 << 20);
    }
    awaitBudgets(CLIENT_BUDGET, "after eight broken 64 MiB bodies");

    // four clients stall inside 64 MiB bodies: together they hold the whole client budget
    for (int i = 0; i < 4; i++) {
      SocketChannel ch = session(master);
      declare(ch, ProtocolLimits.MAX_BODY_BYTES, (32 << 20) + (1 << 20));
    }
    awaitBudgets(0, "while four clients stall in 64 MiB bodies");

    // node-1 restarts warm: its registration inventory (every object, long keys) is served from the
    // control budget
    StorageNodeProcess before = pool.pool().storageNode("node-1");
    before.process().stop();
    long t0 = System.nanoTime();
    StorageNodeProcess after = pool.pool().startStorageNode("node-1");
    Eventually.await(
        GENEROUS,
        "node-1 re-registered at its new address with all " + OBJECTS + " replicas",
        () -> reRegistered(after),
        () -> String.valueOf(node(after)));
    System.out.printf(
        "node-1 re-registered with %d replicas %d ms after its restart began, while clients held"
            + " %d MiB of the client budget%n",
        OBJECTS,
        (System.nanoTime() - t0) / 1_000_000,
        (CLIENT_BUDGET - (long) gauge("kvpool_body_budget_available_bytes")) >> 20);
    assertThat(gauge("kvpool_body_budget_available_bytes"))
        .as("client budget while node-1 registered")
        .isZero();

    for (SocketChannel ch : peers) {
      ch.close();
    }
    awaitBudgets(CLIENT_BUDGET, "once the stalled clients left");
    assertThat(pool.pool().exitedProcesses()).isEmpty();
    assertThat(Values.crc(client.get("budget/" + padding + "/0"))).isEqualTo(Values.crc(first));
  }

  /**
   * A client session that sends {@code sent} bytes of a PUT_START body declared at 64 MiB, then
   * closes. A peer that cannot send them within 10 s (the master has no room left for its body)
   * gives up and closes: a truncated body too, so how long it took never changes the outcome.
   */
  private void sendAndLeave(HostPort master, int sent) throws IOException {
    SocketChannel ch = session(master);
    ScheduledFuture<?> giveUp = timer.schedule(() -> closeQuietly(ch), 10, TimeUnit.SECONDS);
    try (ch) {
      declare(ch, ProtocolLimits.MAX_BODY_BYTES, sent); // zeros: no PUT_START decodes from them
    } catch (IOException e) {
      // the master closed the connection first (its body could not be decoded), or this peer gave
      // up: gone either way
    } finally {
      giveUp.cancel(false);
    }
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  /** An established client session (the local pool runs without authentication). */
  private SocketChannel session(HostPort server) throws IOException {
    SocketChannel ch = SocketChannel.open(server.toSocketAddress());
    peers.add(ch);
    writeFully(ch, RawConnection.clientHandshakeFrame("it-budget-peer"));
    ch.socket().setSoTimeout((int) GENEROUS.toMillis());
    byte[] header = new byte[ProtocolLimits.HEADER_BYTES];
    new java.io.DataInputStream(ch.socket().getInputStream()).readFully(header);
    FrameHeader reply = FrameHeader.decode(ByteBuffer.wrap(header));
    assertThat(reply.isResponse() && !reply.isError()).as("handshake accepted").isTrue();
    ch.socket().getInputStream().readNBytes(reply.bodyLength());
    return ch;
  }

  /**
   * A PUT_START frame declaring {@code declared} bytes of body, of which {@code sent} zero bytes
   * are sent.
   */
  private static void declare(SocketChannel ch, int declared, int sent) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            Opcode.PUT_START.code(),
            0,
            1,
            declared)
        .encode(header);
    writeFully(ch, header.flip());
    ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
    for (int left = sent; left > 0; left -= zeros.capacity()) {
      writeFully(ch, zeros.clear().limit(Math.min(left, zeros.capacity())));
    }
  }

  private static void writeFully(SocketChannel ch, ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      ch.write(bytes);
    }
  }

  /**
   * Waits until the master's /metrics shows {@code client} bytes of the client budget left, the
   * control one whole.
   */
  private void awaitBudgets(long client, String when) {
    Eventually.await(
        GENEROUS,
        "body budgets " + when + ": clients " + client + " bytes left, control " + CONTROL_BUDGET,
        () ->
            gauge("kvpool_body_budget_available_bytes") == client
                && gauge("kvpool_control_body_budget_available_bytes") == CONTROL_BUDGET,
        () ->
            "clients "
                + (long) gauge("kvpool_body_budget_available_bytes")
                + ", control "
                + (long) gauge("kvpool_control_body_budget_available_bytes"));
  }

  private boolean reRegistered(StorageNodeProcess node) {
    MasterStatus.NodeStatus seen = node(node);
    return seen != null
        && "ALIVE".equals(seen.state())
        && seen.replicas() == OBJECTS
        && HostPort.parse(seen.endpoint()).equals(HostPort.parse(node.rpcAddress()));
  }

  private MasterStatus.NodeStatus node(StorageNodeProcess node) {
    return pool.masterAdmin().masterStatus().nodes().stream()
        .filter(n -> n.id().equals(node.id()))
        .findFirst()
        .orElse(null);
  }

  private double gauge(String name) {
    try {
      URI uri = URI.create("http://" + pool.pool().adminAddress() + "/metrics");
      HttpResponse<String> metrics =
          http.send(
              HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString());
      for (String line : metrics.body().split("\n")) {
        if (line.startsWith(name + " ")) {
          return Double.parseDouble(line.substring(name.length() + 1).trim());
        }
      }
      throw new AssertionError(name + " missing from the master's /metrics");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted reading /metrics", e);
    }
  }

  /** tmpfs where there is one, as in a pod: the memory files a restarted node maps again. */
  private static Path memoryDir() {
    try {
      Path shm = Path.of("/dev/shm");
      return Files.isDirectory(shm) && Files.isWritable(shm)
          ? Files.createTempDirectory(shm, "kvpool-budget-it-")
          : Files.createTempDirectory("kvpool-budget-it-");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
