package io.kvpool.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The body budgets are whole again after every way a connection can end, against a real server on
 * loopback driven by raw sockets (issue 28: connections that ended inside or after a large body
 * kept their reservation until the master had none left and dropped a storage node's registration
 * inventory): the peer closes mid-header, mid-body or while its reply is written; the frame or
 * write deadline closes it; a malformed body or frame; the handler throws; the server shuts down.
 * And storage nodes and masters have a budget of their own, so a registration-sized body is served
 * while clients hold the whole client budget. Every wait polls an observable condition with a
 * generous deadline.
 */
class BodyBudgetTest {
  private static final int CLIENT_BUDGET = 4 << 20;
  private static final int CONTROL_BUDGET = 2 << 20;

  /**
   * A large body: 16 times what is read without the budget; 600 KiB of it arrived, the server holds
   * all 1 MiB.
   */
  private static final int BODY = 1 << 20;

  private static final int PARTIAL = 600 << 10;

  /**
   * What a READ is answered with: far more than loopback buffers take, so a peer that does not read
   * stalls it.
   */
  private static final int REPLY_PAYLOAD = 32 << 20;

  private static final Duration LONG = Duration.ofSeconds(120);
  private static final Duration GENEROUS = Duration.ofSeconds(30);
  private static final ServerLimits PATIENT =
      new ServerLimits(
          LONG, LONG, LONG, LONG, Duration.ofSeconds(1), 16, 16, CLIENT_BUDGET, CONTROL_BUDGET);
  private static final ServerLimits HASTY =
      new ServerLimits(
          LONG,
          Duration.ofSeconds(1),
          LONG,
          Duration.ofSeconds(1),
          Duration.ofMillis(10),
          16,
          16,
          CLIENT_BUDGET,
          CONTROL_BUDGET);

  private final PrometheusRegistry metrics = new PrometheusRegistry();
  private final List<SocketChannel> raw = new ArrayList<>();
  private final ByteBuffer replyPayload = ByteBuffer.allocateDirect(REPLY_PAYLOAD);
  private RpcServer server;
  private HostPort endpoint;
  private long nextRequestId = 1;
  private boolean shutDown;

  /**
   * PUT_START and REGISTER_INVENTORY take any body and are answered; PING must be empty (a body is
   * malformed); REMOVE fails in the handler; READ is answered with a large payload.
   */
  private void start(ServerLimits limits) throws IOException {
    server =
        LoopbackServers.start(
            "budgeted",
            Role.MASTER,
            (session, frame) -> {
              switch (frame.opcode()) {
                case PING -> {
                  frame.reader().finish();
                  session.reply(frame, null);
                }
                case REMOVE -> throw new IllegalStateException("a handler's bug");
                case READ -> session.reply(frame, null, replyPayload.duplicate());
                default -> session.reply(frame, null);
              }
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

  @Test
  void aPeerThatClosesMidHeaderAfterALargeRequestLeavesTheBudgetWhole() throws Exception {
    start(PATIENT);
    SocketChannel ch = session(Role.CLIENT);
    send(ch, Opcode.PUT_START, 0, BODY, BODY);
    assertThat(readFrame(ch).isResponse()).isTrue();
    send(
        ch,
        Opcode.PUT_START,
        0,
        BODY,
        -ProtocolLimits.HEADER_BYTES / 2); // half a header, then gone
    ch.close();
    awaitWhole();
  }

  @Test
  void aPeerThatClosesMidBodyLeavesTheBudgetWhole() throws Exception {
    start(PATIENT);
    SocketChannel ch = session(Role.CLIENT);
    send(ch, Opcode.PUT_START, 0, BODY, PARTIAL);
    awaitHeld(server::clientBudgetAvailable, CLIENT_BUDGET, BODY);
    ch.close();
    awaitWhole();
  }

  @Test
  void aPeerThatClosesAfterItsBodyWhileItsReplyIsWrittenLeavesTheBudgetWhole() throws Exception {
    start(PATIENT);
    SocketChannel ch = session(Role.CLIENT);
    send(ch, Opcode.READ, 0, BODY, BODY);
    awaitHeld(server::clientBudgetAvailable, CLIENT_BUDGET, BODY);
    ch.close(); // the reply's 32 MiB unread: the server's write fails
    awaitWhole();
  }

  @Test
  void aBodyStalledPastTheFrameDeadlineLeavesTheBudgetWhole() throws Exception {
    start(HASTY);
    SocketChannel ch = session(Role.CLIENT);
    send(ch, Opcode.PUT_START, 0, BODY, PARTIAL);
    awaitClosedByServer(ch);
    awaitWhole();
    assertThat(metric("kvpool_connections_closed_total{reason=\"frame_timeout\"}")).isEqualTo(1);
  }

  @Test
  void aReplyNotReadPastTheWriteDeadlineLeavesTheBudgetWhole() throws Exception {
    start(HASTY);
    SocketChannel ch = session(Role.CLIENT);
    send(ch, Opcode.READ, 0, BODY, BODY);
    awaitHeld(server::clientBudgetAvailable, CLIENT_BUDGET, BODY);
    awaitWhole(); // the peer never reads: the write deadline closes the connection
    assertThat(metric("kvpool_connections_closed_total{reason=\"write_timeout\"}")).isEqualTo(1);
  }

  @Test
  void aMalformedLargeBodyLeavesTheBudgetWhole() throws Exception {
    start(PATIENT);
    SocketChannel ch = session(Role.CLIENT);
    send(ch, Opcode.PING, 0, BODY, BODY); // PING has an empty body: these bytes cannot be decoded
    awaitClosedByServer(ch);
    awaitWhole();
    assertThat(metric("kvpool_connections_closed_total{reason=\"malformed\"}")).isEqualTo(1);
  }

  @Test
  void aMalformedFrameWithALargeBodyLeavesTheBudgetWhole() throws Exception {
    start(PATIENT);
    SocketChannel ch = session(Role.CLIENT);
    send(
        ch,
        Opcode.PUT_START,
        FrameHeader.FLAG_RESPONSE,
        BODY,
        BODY); // a response sent as a request
    awaitClosedByServer(ch);
    awaitWhole();
    assertThat(metric("kvpool_connections_closed_total{reason=\"malformed\"}")).isEqualTo(1);
  }

  @Test
  void aHandlerThatThrowsOnALargeRequestLeavesTheBudgetWhole() throws Exception {
    start(PATIENT);
    SocketChannel ch = session(Role.CLIENT);
    send(ch, Opcode.REMOVE, 0, BODY, BODY);
    awaitClosedByServer(ch);
    awaitWhole();
    assertThat(metric("kvpool_connections_closed_total{reason=\"internal_error\"}")).isEqualTo(1);
  }

  @Test
  void aServerShutDownWithBodiesInFlightLeavesBothBudgetsWhole() throws Exception {
    start(PATIENT);
    send(session(Role.CLIENT), Opcode.PUT_START, 0, BODY, PARTIAL);
    send(session(Role.STORAGE), Opcode.REGISTER_INVENTORY, 0, BODY, PARTIAL);
    awaitHeld(server::clientBudgetAvailable, CLIENT_BUDGET, BODY);
    awaitHeld(server::controlBudgetAvailable, CONTROL_BUDGET, BODY);
    server.close();
    shutDown = true;
    awaitWhole();
  }

  @Test
  void storageNodesAndMastersAreServedWhileClientsHoldTheWholeClientBudget() throws Exception {
    start(PATIENT);
    // a client declares a body of the whole budget, sends over half of it and stalls: it holds all
    // of it
    send(session(Role.CLIENT), Opcode.PUT_START, 0, CLIENT_BUDGET, CLIENT_BUDGET / 2 + BODY);
    awaitHeld(server::clientBudgetAvailable, CLIENT_BUDGET, CLIENT_BUDGET);
    int inventory = 333_000; // the re-registration inventory the master dropped
    for (Role role : new Role[] {Role.STORAGE, Role.MASTER}) {
      SocketChannel ch = session(role);
      long t0 = System.nanoTime();
      send(ch, Opcode.REGISTER_INVENTORY, 0, inventory, inventory);
      FrameHeader reply;
      try {
        reply = readFrame(ch);
      } catch (java.net.SocketTimeoutException e) {
        throw new AssertionError(
            role
                + "'s "
                + inventory
                + "-byte body not answered within "
                + ch.socket().getSoTimeout()
                + " ms: it waits for room the clients hold",
            e);
      }
      System.out.printf(
          "%s's %d-byte body answered in %d ms while clients hold the client budget%n",
          role, inventory, (System.nanoTime() - t0) / 1_000_000);
      assertThat(reply.isResponse()).isTrue();
      assertThat(reply.isError()).isFalse();
      assertThat(server.clientBudgetAvailable())
          .as("client budget while the %s was served", role)
          .isZero();
    }
    for (SocketChannel ch : raw) {
      ch.close();
    }
    awaitWhole();
  }

  /**
   * An established session of a raw peer claiming {@code role} (the server runs without
   * authentication).
   */
  private SocketChannel session(Role role) throws IOException {
    SocketChannel ch = SocketChannel.open(endpoint.toSocketAddress());
    raw.add(ch);
    ch.socket().setSoTimeout((int) LONG.toMillis() / 2);
    BodyWriter w = new BodyWriter();
    new HandshakeRequest(
            new Handshake(VersionInfo.CURRENT, role, "pool", "raw-" + role),
            0,
            new byte[0],
            new byte[HandshakeRequest.NONCE_BYTES])
        .encode(w);
    ByteBuffer body = w.toBuffer();
    ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining());
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            Opcode.HANDSHAKE.code(),
            0,
            0,
            body.remaining())
        .encode(frame);
    writeFully(ch, frame.put(body).flip());
    FrameHeader reply = readFrame(ch);
    assertThat(reply.isResponse() && !reply.isError())
        .as("handshake of a %s accepted", role)
        .isTrue();
    return ch;
  }

  /**
   * A frame declaring a body of {@code bodyBytes}, of which the first {@code sent} bytes are sent;
   * a negative {@code sent} sends only that many bytes of the header.
   */
  private void send(SocketChannel ch, Opcode opcode, int flags, int bodyBytes, int sent)
      throws IOException {
    ByteBuffer header = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            opcode.code(),
            flags,
            nextRequestId++,
            bodyBytes)
        .encode(header);
    header.flip();
    if (sent < 0) {
      writeFully(ch, header.limit(-sent));
      return;
    }
    writeFully(ch, header);
    writeFully(ch, ByteBuffer.allocate(sent));
  }

  private static void writeFully(SocketChannel ch, ByteBuffer bytes) throws IOException {
    while (bytes.hasRemaining()) {
      ch.write(bytes);
    }
  }

  /** The header of the next frame from the server (its body is read and dropped). */
  private static FrameHeader readFrame(SocketChannel ch) throws IOException {
    DataInputStream in = new DataInputStream(ch.socket().getInputStream());
    byte[] header = new byte[ProtocolLimits.HEADER_BYTES];
    in.readFully(header);
    FrameHeader h = FrameHeader.decode(ByteBuffer.wrap(header));
    in.readFully(new byte[h.bodyLength()]);
    return h;
  }

  /** Waits until the server closed {@code ch}: EOF or a reset. */
  private static void awaitClosedByServer(SocketChannel ch) throws IOException {
    try {
      assertThat(ch.socket().getInputStream().read())
          .as("the server closed the connection")
          .isEqualTo(-1);
    } catch (java.net.SocketException e) {
      assertThat(e.getMessage()).contains("reset");
    }
  }

  /**
   * Waits until a budget of {@code capacity} has {@code bytes} taken (the server holds the body
   * that arrived).
   */
  private static void awaitHeld(IntSupplier available, int capacity, int bytes)
      throws InterruptedException {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    while (available.getAsInt() > capacity - bytes) {
      assertThat(System.nanoTime())
          .as("budget of %d bytes with %d taken; %d left", capacity, bytes, available.getAsInt())
          .isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /** Waits until both budgets are at their capacity again; fails naming what is still held. */
  private void awaitWhole() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + GENEROUS.toNanos();
    while (server.clientBudgetAvailable() != CLIENT_BUDGET
        || server.controlBudgetAvailable() != CONTROL_BUDGET) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "body budgets not whole within "
                + GENEROUS
                + ": clients "
                + (CLIENT_BUDGET - server.clientBudgetAvailable())
                + " bytes held of "
                + CLIENT_BUDGET
                + ", storage nodes and masters "
                + (CONTROL_BUDGET - server.controlBudgetAvailable())
                + " of "
                + CONTROL_BUDGET
                + "; closed connections: "
                + closedCounters());
      }
      Thread.sleep(10);
    }
    assertThat(metric("kvpool_body_budget_available_bytes")).isEqualTo(CLIENT_BUDGET);
    assertThat(metric("kvpool_control_body_budget_available_bytes")).isEqualTo(CONTROL_BUDGET);
    if (!shutDown) {
      try (RpcConnection c =
              RpcConnection.open(
                  endpoint,
                  new Handshake(VersionInfo.CURRENT, Role.CLIENT, "pool", "after"),
                  GENEROUS);
          RpcConnection.Deadline d = c.deadline(GENEROUS)) {
        assertThat(c.call(Opcode.PING, null, null).header().isResponse()).isTrue();
      }
    }
  }

  private String closedCounters() {
    StringBuilder out = new StringBuilder();
    for (String line : scrape().split("\n")) {
      if (line.startsWith("kvpool_connections_closed_total")) {
        out.append(line).append("; ");
      }
    }
    return out.toString();
  }

  private double metric(String line) {
    for (String l : scrape().split("\n")) {
      if (l.startsWith(line + " ")) {
        return Double.parseDouble(l.substring(line.length() + 1).trim());
      }
    }
    return 0;
  }

  private String scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      new PrometheusTextFormatWriter(false).write(out, metrics.scrape());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
