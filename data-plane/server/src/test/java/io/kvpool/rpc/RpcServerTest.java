package io.kvpool.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.FrameChannel;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.security.PoolSecrets;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Strict decoding against a real server socket: bad input closes one connection, never the server.
 */
class RpcServerTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private RpcServer server;
  private HostPort endpoint;

  @BeforeEach
  void start() throws IOException {
    server =
        LoopbackServers.start(
            "test",
            Role.MASTER,
            (session, frame) -> {
              frame.reader().finish();
              session.reply(frame, null);
            });
    endpoint = server.endpoint();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private RpcConnection client(VersionInfo v, String pool) throws IOException {
    return RpcConnection.open(endpoint, new Handshake(v, Role.CLIENT, pool, "c"), TIMEOUT);
  }

  private void assertServerStillServes() throws IOException {
    try (RpcConnection c = client(VersionInfo.CURRENT, "pool");
        RpcConnection.Deadline d = c.deadline(TIMEOUT)) {
      assertThat(c.call(Opcode.PING, null, null).header().isResponse()).isTrue();
    }
  }

  /**
   * Sends raw bytes and returns true if the server closed the connection (EOF) without replying.
   */
  private boolean sendRawAndExpectClose(ByteBuffer bytes, boolean closeOutput) throws IOException {
    try (SocketChannel ch = SocketChannel.open(endpoint.toSocketAddress())) {
      while (bytes.hasRemaining()) {
        ch.write(bytes);
      }
      if (closeOutput) {
        ch.shutdownOutput();
      }
      ch.socket().setSoTimeout(5000);
      return ch.socket().getInputStream().read() == -1;
    } catch (java.net.SocketException e) {
      // the server closed while our bytes were unread: the kernel answers with a reset
      return e.getMessage().contains("reset");
    }
  }

  private static ByteBuffer frame(int opcode, ByteBuffer body) {
    ByteBuffer b = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining());
    new FrameHeader(1, 0, opcode, 0, 1, body.remaining()).encode(b);
    b.put(body).flip();
    return b;
  }

  private static ByteBuffer handshakeFrame() {
    BodyWriter w = new BodyWriter();
    new HandshakeRequest(
            new Handshake(VersionInfo.CURRENT, Role.CLIENT, "pool", "raw"),
            0,
            new byte[0],
            new byte[HandshakeRequest.NONCE_BYTES])
        .encode(w);
    return frame(Opcode.HANDSHAKE.code(), w.toBuffer());
  }

  @Test
  void garbageClosesTheConnectionOnly() throws IOException {
    assertThat(
            sendRawAndExpectClose(
                ByteBuffer.wrap("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes()), false))
        .isTrue();
    assertServerStillServes();
  }

  @Test
  void oversizedBodyIsRefusedBeforeReading() throws IOException {
    ByteBuffer h = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    new FrameHeader(1, 0, Opcode.PING.code(), 0, 1, ProtocolLimits.MAX_BODY_BYTES + 1).encode(h);
    h.flip();
    assertThat(sendRawAndExpectClose(h, false)).isTrue();
    assertServerStillServes();
  }

  @Test
  void truncatedFrameIsDropped() throws IOException {
    ByteBuffer hs = handshakeFrame();
    hs.limit(hs.limit() - 3);
    assertThat(sendRawAndExpectClose(hs, true)).isTrue();
    assertServerStillServes();
  }

  @Test
  void firstFrameMustBeTheHandshake() throws IOException {
    assertThat(sendRawAndExpectClose(frame(Opcode.PING.code(), ByteBuffer.allocate(0)), false))
        .isTrue();
    assertServerStillServes();
  }

  @Test
  void malformedHandshakeBodyClosesTheConnection() throws IOException {
    assertThat(
            sendRawAndExpectClose(
                frame(Opcode.HANDSHAKE.code(), ByteBuffer.wrap(new byte[] {0, 50, 1})), false))
        .isTrue();
    assertServerStillServes();
  }

  @Test
  void malformedRequestBodyAfterHandshakeClosesTheConnection() throws IOException {
    ByteBuffer hs = handshakeFrame();
    ByteBuffer ping = frame(Opcode.PING.code(), ByteBuffer.wrap(new byte[] {1, 2, 3}));
    ByteBuffer both =
        ByteBuffer.allocate(hs.remaining() + ping.remaining()).put(hs).put(ping).flip();
    try (SocketChannel ch = SocketChannel.open(endpoint.toSocketAddress())) {
      while (both.hasRemaining()) {
        ch.write(both);
      }
      ch.socket().setSoTimeout(5000);
      FrameChannel fc =
          new FrameChannel(ch, VersionInfo.PROTOCOL_MAJOR, VersionInfo.PROTOCOL_MINOR);
      assertThat(fc.read().header().isResponse()).as("handshake reply").isTrue();
      assertThat(ch.socket().getInputStream().read())
          .as("closed after the bad PING body")
          .isEqualTo(-1);
    }
    assertServerStillServes();
  }

  @Test
  void incompatibleVersionIsRefusedNamingBothVersionsAndCounted() {
    assertThatThrownBy(() -> client(new VersionInfo("3.0.0", 3, 0), "pool"))
        .isInstanceOf(HandshakeException.class)
        .hasMessageContaining(VersionInfo.CURRENT.release())
        .hasMessageContaining(VersionInfo.CURRENT.protocol())
        .hasMessageContaining("3.0.0")
        .hasMessageContaining("3.0")
        .satisfies(
            e -> assertThat(((HandshakeException) e).code()).isEqualTo(ErrorCode.VERSION_MISMATCH));
    assertThat(server.versionMismatches()).isEqualTo(1);
  }

  @Test
  void otherPoolIsRefused() {
    assertThatThrownBy(() -> client(VersionInfo.CURRENT, "elsewhere"))
        .isInstanceOf(HandshakeException.class)
        .hasMessageContaining("elsewhere");
  }

  @Test
  void silentPeersTimeOutInsteadOfBlockingForever() throws Exception {
    try (java.nio.channels.ServerSocketChannel mute =
        java.nio.channels.ServerSocketChannel.open()) {
      mute.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
      HostPort at = HostPort.of((java.net.InetSocketAddress) mute.getLocalAddress());
      long t0 = System.nanoTime();
      assertThatThrownBy(
              () ->
                  RpcConnection.open(
                      at,
                      new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "c"),
                      Duration.ofMillis(200)))
          .isInstanceOf(java.net.SocketTimeoutException.class)
          .hasMessageContaining("handshake");
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(3));
    }
    RpcServer.Identity id =
        new RpcServer.Identity(VersionInfo.CURRENT, Role.MASTER, () -> "", "slow");
    try (RpcServer slow =
        new RpcServer(
            "slow",
            "127.0.0.1",
            0,
            id,
            (session, frame) -> {
              try {
                Thread.sleep(5_000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            ServerLimits.DEFAULTS,
            PoolSecrets.none(),
            new PrometheusRegistry())) {
      slow.start();
      try (RpcConnection c =
              RpcConnection.open(
                  slow.endpoint(),
                  new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "c"),
                  TIMEOUT);
          RpcConnection.Deadline d = c.deadline(Duration.ofMillis(200))) {
        assertThatThrownBy(() -> c.call(Opcode.PING, null))
            .isInstanceOf(java.net.SocketTimeoutException.class)
            .hasMessageContaining("deadline");
        assertThat(c.isUsable()).isFalse();
      }
    }
  }

  @Test
  void anAddressThatNeverAcceptsCostsTheConnectTimeoutNotTheWholeTimeout() throws Exception {
    java.util.List<java.net.Socket> queued = new java.util.ArrayList<>();
    try (java.net.ServerSocket full =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      HostPort at = new HostPort("127.0.0.1", full.getLocalPort());
      // nobody accepts: once the accept queue is full the kernel drops SYNs, as a deleted pod's
      // address does
      boolean dropping = false;
      for (int i = 0; i < 16 && !dropping; i++) {
        java.net.Socket probe = new java.net.Socket();
        queued.add(probe);
        try {
          probe.connect(full.getLocalSocketAddress(), 1_000);
        } catch (java.net.SocketTimeoutException e) {
          dropping = true;
        }
      }
      org.junit.jupiter.api.Assumptions.assumeTrue(
          dropping, "this kernel accepts past the backlog");
      Duration timeout = Duration.ofSeconds(60);
      long t0 = System.nanoTime();
      assertThatThrownBy(
              () ->
                  RpcConnection.open(
                      at, new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "c"), timeout))
          .isInstanceOf(java.net.SocketTimeoutException.class)
          .hasMessageContaining("no connection to " + at);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(timeout);
    } finally {
      for (java.net.Socket s : queued) {
        s.close();
      }
    }
  }

  @Test
  void unknownOpcodeGetsAnErrorAndTheConnectionStaysUsable() throws IOException {
    try (RpcConnection c = client(VersionInfo.CURRENT, "");
        RpcConnection.Deadline d = c.deadline(TIMEOUT)) {
      assertThat(c.peer().poolId()).isEqualTo("pool");
      assertThatThrownBy(() -> c.call(Opcode.HANDSHAKE, null, null))
          .isInstanceOf(RemoteErrorException.class)
          .satisfies(
              e ->
                  assertThat(((RemoteErrorException) e).code())
                      .isEqualTo(ErrorCode.UNKNOWN_OPCODE));
      assertThat(c.call(Opcode.PING, null, null).header().isResponse()).isTrue();
    }
  }

  /**
   * A server restarted on its fixed port while the port is still held (the old acceptor not gone
   * yet, or a loopback client connected to the free port from itself) waits for it instead of
   * failing its start; this failed CI once with "Address already in use".
   */
  @Test
  void aFixedPortStillHeldByItsLastOwnerIsBoundOnceReleased() throws Exception {
    java.net.ServerSocket holder = new java.net.ServerSocket();
    holder.bind(new java.net.InetSocketAddress("127.0.0.1", 0));
    int port = holder.getLocalPort();
    RpcServer.Identity id =
        new RpcServer.Identity(VersionInfo.CURRENT, Role.MASTER, () -> "", "restarted");
    java.util.concurrent.CompletableFuture<RpcServer> started =
        new java.util.concurrent.CompletableFuture<>();
    Thread starting =
        new Thread(
            () -> {
              try {
                started.complete(
                    new RpcServer(
                        "restarted",
                        "127.0.0.1",
                        port,
                        id,
                        (session, frame) -> {
                          frame.reader().finish();
                          session.reply(frame, null);
                        },
                        ServerLimits.DEFAULTS,
                        PoolSecrets.none(),
                        new PrometheusRegistry()));
              } catch (Throwable e) {
                started.completeExceptionally(e);
              }
            });
    starting.start();
    // the start has found the port taken once it waits between attempts
    while (starting.getState() != Thread.State.TIMED_WAITING && !started.isDone()) {
      Thread.onSpinWait();
    }
    assertThat(started).as("the port is still held").isNotDone();
    holder.close();
    try (RpcServer restarted = started.get(30, java.util.concurrent.TimeUnit.SECONDS)) {
      restarted.start();
      assertThat(restarted.endpoint().port()).isEqualTo(port);
      try (RpcConnection c =
          RpcConnection.open(
              restarted.endpoint(),
              new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", "c"),
              TIMEOUT)) {
        c.call(Opcode.PING, null);
      }
    }
  }
}
