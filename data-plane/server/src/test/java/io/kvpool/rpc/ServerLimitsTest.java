package io.kvpool.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What one peer may take from a server, against a real server socket with short deadlines and small
 * caps: stalled and trickling handshakes, idle sessions and half-sent frames are closed at their
 * deadlines; at the handshake cap the oldest is evicted so a new client still gets in; at the
 * session cap a new peer gets BUSY; a declared 64 MiB body allocates nothing it was not sent. Times
 * are printed, never asserted beyond a generous bound.
 */
class ServerLimitsTest {
  private static final ServerLimits LIMITS =
      new ServerLimits(
          Duration.ofSeconds(1),
          Duration.ofSeconds(1),
          Duration.ofSeconds(2),
          Duration.ofSeconds(1),
          Duration.ofMillis(100),
          4,
          3,
          1 << 20);
  private static final Duration GENEROUS = Duration.ofSeconds(30);

  private final PrometheusRegistry metrics = new PrometheusRegistry();
  private final List<SocketChannel> raw = new ArrayList<>();
  private RpcServer server;
  private HostPort endpoint;

  private void start(ServerLimits limits) throws IOException {
    server =
        LoopbackServers.start(
            "limited",
            Role.MASTER,
            (session, frame) -> {
              frame.reader().finish();
              session.reply(frame, null);
            },
            limits,
            metrics);
    endpoint = server.endpoint();
  }

  @AfterEach
  void stop() throws IOException {
    for (SocketChannel ch : raw) {
      ch.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private SocketChannel connect() throws IOException {
    SocketChannel ch = SocketChannel.open(endpoint.toSocketAddress());
    raw.add(ch);
    return ch;
  }

  private RpcConnection client() throws IOException {
    return RpcConnection.open(
        endpoint,
        new Handshake(VersionInfo.CURRENT, Role.CLIENT, "pool", "c"),
        Duration.ofSeconds(5));
  }

  /** A client session, retrying while the server answers BUSY, for at most the generous bound. */
  private RpcConnection clientOnceNotBusy() throws Exception {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    while (true) {
      try {
        return client();
      } catch (HandshakeException e) {
        if (e.code() != ErrorCode.BUSY || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(20);
      }
    }
  }

  /**
   * Milliseconds until the server closed {@code ch} (EOF or reset); fails after the generous bound.
   */
  private static long millisUntilClosed(SocketChannel ch, long since) throws IOException {
    ch.socket().setSoTimeout((int) GENEROUS.toMillis());
    try {
      while (ch.socket().getInputStream().read() != -1) {
        // a reply (e.g. to the handshake) may come first; the close is what is awaited
      }
    } catch (java.net.SocketException e) {
      assertThat(e.getMessage()).contains("reset");
    }
    return (System.nanoTime() - since) / 1_000_000;
  }

  private static ByteBuffer handshakeFrame() {
    BodyWriter w = new BodyWriter();
    new HandshakeRequest(
            new Handshake(VersionInfo.CURRENT, Role.CLIENT, "pool", "raw"),
            0,
            new byte[0],
            new byte[HandshakeRequest.NONCE_BYTES])
        .encode(w);
    ByteBuffer body = w.toBuffer();
    ByteBuffer b = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining());
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            Opcode.HANDSHAKE.code(),
            0,
            0,
            body.remaining())
        .encode(b);
    return b.put(body).flip();
  }

  /**
   * The counter once it reached {@code atLeast} (the serving thread counts just after the socket
   * closed).
   */
  private double awaitMetric(String line, double atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    double value = metric(line);
    while (value < atLeast && System.nanoTime() < deadline) {
      Thread.sleep(20);
      value = metric(line);
    }
    return value;
  }

  private double metric(String line) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      new PrometheusTextFormatWriter(false).write(out, metrics.scrape());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    for (String l : out.toString(StandardCharsets.UTF_8).split("\n")) {
      if (l.startsWith(line + " ")) {
        return Double.parseDouble(l.substring(line.length() + 1).trim());
      }
    }
    return 0;
  }

  @Test
  void aRepliesWriteDeadlineGrowsWithItsPayloadOnlyUpToTheLargestValue() {
    ServerLimits d = ServerLimits.DEFAULTS;
    long second = Duration.ofSeconds(1).toNanos();
    assertThat(d.replyNanos(0)).isEqualTo(60 * second); // frame 30 s + payload 30 s
    assertThat(d.replyNanos(1 << 20)).isEqualTo(61 * second);
    long largest = 60 * second + 1024 * second;
    assertThat(d.replyNanos(ProtocolLimits.MAX_VALUE_BYTES)).isEqualTo(largest);
    assertThat(d.replyNanos(4096L * ProtocolLimits.MAX_VALUE_BYTES))
        .as("a READ_BATCH of 4096 largest values")
        .isEqualTo(largest);
  }

  @Test
  void aConnectionThatNeverHandshakesIsClosedAtTheHandshakeDeadline() throws Exception {
    start(LIMITS);
    long t0 = System.nanoTime();
    long closedAfter = millisUntilClosed(connect(), t0);
    System.out.printf(
        "bare connect closed after %d ms (handshake deadline %d ms)%n",
        closedAfter, LIMITS.handshakeTimeout().toMillis());
    assertThat(closedAfter).isGreaterThanOrEqualTo(LIMITS.handshakeTimeout().toMillis() - 50);
    assertThat(awaitMetric("kvpool_connections_closed_total{reason=\"handshake_timeout\"}", 1))
        .isEqualTo(1);
  }

  @Test
  void aHandshakeSentOneByteAtATimeIsClosedAtTheHandshakeDeadline() throws Exception {
    start(LIMITS);
    SocketChannel ch = connect();
    ByteBuffer hs = handshakeFrame();
    long t0 = System.nanoTime();
    try {
      while (hs.hasRemaining()) {
        ch.write(ByteBuffer.wrap(new byte[] {hs.get()}));
        Thread.sleep(100); // the slowloris pace: 10 bytes/s
      }
    } catch (IOException e) {
      // closed under our feet: that is the point
    }
    long closedAfter = millisUntilClosed(ch, t0);
    System.out.printf("handshake at 10 B/s closed after %d ms%n", closedAfter);
    assertThat(awaitMetric("kvpool_connections_closed_total{reason=\"handshake_timeout\"}", 1))
        .isEqualTo(1);
  }

  @Test
  void anIdleSessionAndAHalfSentFrameAreClosedAtTheirDeadlines() throws Exception {
    start(LIMITS);
    SocketChannel idle = connect();
    idle.write(handshakeFrame());
    long idleClosed = millisUntilClosed(idle, System.nanoTime());
    SocketChannel half = connect();
    half.write(handshakeFrame());
    ByteBuffer ping = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR, VersionInfo.PROTOCOL_MINOR, Opcode.PING.code(), 0, 1, 100)
        .encode(ping);
    half.write(ping.flip());
    half.write(ByteBuffer.wrap(new byte[10])); // 10 of the 100 body bytes, then silence
    long halfClosed = millisUntilClosed(half, System.nanoTime());
    System.out.printf(
        "idle session closed after %d ms (idle %d ms); half-sent frame after %d ms (frame %d ms)%n",
        idleClosed, LIMITS.idleTimeout().toMillis(), halfClosed, LIMITS.frameTimeout().toMillis());
    assertThat(awaitMetric("kvpool_connections_closed_total{reason=\"idle\"}", 1)).isEqualTo(1);
    assertThat(awaitMetric("kvpool_connections_closed_total{reason=\"frame_timeout\"}", 1))
        .isEqualTo(1);
  }

  @Test
  void atTheHandshakeCapTheOldestIsEvictedAndANewClientGetsIn() throws Exception {
    start(
        new ServerLimits(
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            4,
            100,
            1 << 20));
    List<SocketChannel> silent = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      silent.add(connect());
    }
    try (RpcConnection c = client();
        RpcConnection.Deadline d = c.deadline(Duration.ofSeconds(5))) {
      assertThat(c.call(Opcode.PING, null, null).header().isResponse()).isTrue();
    }
    long t0 = System.nanoTime();
    for (SocketChannel ch : silent.subList(0, 16)) {
      millisUntilClosed(ch, t0);
    }
    assertThat(awaitMetric("kvpool_connections_closed_total{reason=\"handshake_evicted\"}", 16))
        .isGreaterThanOrEqualTo(16);
  }

  @Test
  void atTheSessionCapANewPeerIsRefusedWithBusyAndExistingSessionsKeepWorking() throws Exception {
    start(
        new ServerLimits(
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            4,
            2,
            1 << 20));
    try (RpcConnection a = client();
        RpcConnection b = client()) {
      assertThatThrownBy(this::client)
          .isInstanceOf(HandshakeException.class)
          .satisfies(e -> assertThat(((HandshakeException) e).code()).isEqualTo(ErrorCode.BUSY))
          .hasMessageContaining("maximum of 2 sessions");
      try (RpcConnection.Deadline d = a.deadline(Duration.ofSeconds(5))) {
        assertThat(a.call(Opcode.PING, null, null).header().isResponse()).isTrue();
      }
      assertThat(awaitMetric("kvpool_connections_refused_total{reason=\"busy\"}", 1)).isEqualTo(1);
    }
    // room again once the server has seen both closes (it learns of each asynchronously)
    try (RpcConnection again = clientOnceNotBusy()) {
      assertThat(again.peer().role()).isEqualTo(Role.MASTER);
    }
  }

  @Test
  void aDeclared64MiBBodyHoldsOnlyWhatArrived() throws Exception {
    start(
        new ServerLimits(
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(60),
            Duration.ofSeconds(1),
            100,
            100,
            8 << 20));
    for (int i = 0; i < 64; i++) {
      SocketChannel ch = connect();
      ch.write(handshakeFrame());
      ByteBuffer header = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
      new FrameHeader(
              VersionInfo.PROTOCOL_MAJOR,
              VersionInfo.PROTOCOL_MINOR,
              Opcode.STATS.code(),
              0,
              1,
              ProtocolLimits.MAX_BODY_BYTES)
          .encode(header);
      ch.write(header.flip());
      ch.write(ByteBuffer.wrap(new byte[1000]));
    }
    // 64 bodies declared at 64 MiB (4 GiB): within an 8 MiB budget, and the server keeps serving
    try (RpcConnection c = client();
        RpcConnection.Deadline d = c.deadline(Duration.ofSeconds(5))) {
      assertThat(c.call(Opcode.PING, null, null).header().isResponse()).isTrue();
    }
    Runtime rt = Runtime.getRuntime();
    long used = rt.totalMemory() - rt.freeMemory();
    System.out.printf(
        "64 connections declaring 64 MiB bodies: server heap in use %d MiB, budget left %d KiB%n",
        used >> 20, (long) metric("kvpool_body_budget_available_bytes") >> 10);
    // no connection holds more than the first 64 KiB of its body: 1,000 bytes arrived
    assertThat(metric("kvpool_body_budget_available_bytes"))
        .isGreaterThanOrEqualTo((8 << 20) - 64 * (64 << 10));
  }
}
