package io.kvpool.rpc;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyBudget;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.FrameChannel;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeReply;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.ServerState;
import io.kvpool.security.PoolSecrets;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import jdk.net.ExtendedSocketOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts connections and serves each on a thread of its own (blocking NIO: simple and fast enough
 * on loopback). Runs the handshake, then hands every well-formed request frame to the handler. A
 * malformed frame closes only its connection. Bounded as PROTOCOL.md says ({@link ServerLimits}):
 * deadlines for the handshake, idle time, a frame once started, payloads and writes; at most so
 * many connections in their handshake (the oldest is closed to admit a new one) and so many
 * sessions (more are refused with BUSY); large bodies share a memory budget (clients one, storage
 * nodes and masters another) and nothing is allocated by a declared length; TCP keepalive finds
 * vanished peers. Whatever a connection holds is given back when it ends, however it ends: its
 * frame channel is closed in one place.
 */
public final class RpcServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
  private static final RateLimitedLog BAD_FRAMES = new RateLimitedLog(LOG, 5_000);
  private static final SecureRandom NONCES = new SecureRandom();

  /**
   * Serves one request frame; must write exactly one reply (or throw to close the connection),
   * except for a one-way request (COMMIT, PROTOCOL.md), which is never answered.
   */
  @FunctionalInterface
  public interface RequestHandler {
    void handle(Session session, Frame request) throws IOException;
  }

  /**
   * What this server says in handshakes. The pool id may be learned later (storage nodes learn it
   * from the master); {@code view}, {@code state} and {@code leader} change with leadership (a
   * storage node: the view it follows, SERVING, empty).
   */
  public record Identity(
      VersionInfo version,
      Role role,
      Supplier<String> poolId,
      String id,
      LongSupplier view,
      Supplier<ServerState> state,
      Supplier<String> leader) {
    /** A server that is always SERVING at view 0 and names no leader. */
    public Identity(VersionInfo version, Role role, Supplier<String> poolId, String id) {
      this(version, role, poolId, id, () -> 0, () -> ServerState.SERVING, () -> "");
    }

    Handshake handshake() {
      return new Handshake(version, role, poolId.get(), id);
    }

    HandshakeReply reply() {
      return HandshakeReply.unauthenticated(
          handshake(), view.getAsLong(), state.get(), leader.get());
    }

    HandshakeReply reply(byte[] nonce, byte[] proof) {
      return new HandshakeReply(
          handshake(), view.getAsLong(), state.get(), leader.get(), true, nonce, proof);
    }
  }

  private final String name;
  private final Identity identity;
  private final RequestHandler handler;
  private final ServerLimits limits;
  private final PoolSecrets secrets;
  private final ServerSocketChannel server;
  private final ThreadPoolExecutor workers;

  /** Room for the large bodies of clients. */
  private final BodyBudget bodyBudget;

  /**
   * Room for the large bodies of storage nodes and masters (registration inventories): never
   * starved by clients.
   */
  private final BodyBudget controlBudget;

  private final RpcMetrics rpcMetrics;
  private final Handshaker handshaker;
  private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();

  /**
   * Connections still in their handshake, oldest first: at the cap, the oldest is closed to admit a
   * new one.
   */
  private final Deque<SocketChannel> handshaking = new ConcurrentLinkedDeque<>();

  private final Set<SocketChannel> evicted = ConcurrentHashMap.newKeySet();
  private final AtomicInteger sessions = new AtomicInteger();
  private final ServingLoad load = new ServingLoad();
  private volatile boolean closed;
  private Thread acceptor;

  /** How long a start waits for a fixed port the previous holder has not released yet. */
  static final Duration FIXED_PORT_BIND_PATIENCE = Duration.ofSeconds(20);

  public RpcServer(
      String name,
      String host,
      int port,
      Identity identity,
      RequestHandler handler,
      ServerLimits limits,
      PoolSecrets secrets,
      PrometheusRegistry metrics)
      throws IOException {
    this.name = name;
    this.identity = identity;
    this.handler = handler;
    this.limits = limits;
    this.secrets = secrets;
    this.bodyBudget = new BodyBudget(limits.bodyBudgetBytes());
    this.controlBudget = new BodyBudget(limits.controlBodyBudgetBytes());
    this.rpcMetrics =
        new RpcMetrics(
            metrics,
            handshaking::size,
            sessions::get,
            bodyBudget::available,
            controlBudget::available);
    this.handshaker = new Handshaker(name, identity, limits, secrets, sessions, load, rpcMetrics);
    this.server = listen(name, new InetSocketAddress(host, port));
    AtomicInteger n = new AtomicInteger();
    // the caps bound the threads: handshakes beyond theirs evict the oldest, sessions beyond theirs
    // are refused
    this.workers =
        new ThreadPoolExecutor(
            0,
            limits.maxHandshaking() + limits.maxSessions() + 64,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, name + "-conn-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Binds the listening socket. A fixed port may still be held for a moment by the process this one
   * replaces (a socket the old server's acceptor has not let go of yet, or a loopback client that
   * connected to the free port from itself): the bind is retried for {@link
   * #FIXED_PORT_BIND_PATIENCE} before the start fails. An ephemeral port (0) never collides.
   */
  private static ServerSocketChannel listen(String name, InetSocketAddress address)
      throws IOException {
    long deadline = System.nanoTime() + FIXED_PORT_BIND_PATIENCE.toNanos();
    for (int attempt = 1; ; attempt++) {
      ServerSocketChannel channel = ServerSocketChannel.open();
      try {
        channel.bind(address, 256);
        return channel;
      } catch (BindException e) {
        channel.close();
        if (address.getPort() == 0 || System.nanoTime() > deadline) {
          throw e;
        }
        LOG.info(
            "event=bind_retry server={} address={} attempt={} error=\"{}\"",
            name,
            address,
            attempt,
            e.getMessage());
        try {
          Thread.sleep(Math.min(1_000, 50L * attempt));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  public HostPort endpoint() throws IOException {
    return HostPort.of((InetSocketAddress) server.getLocalAddress());
  }

  /** Connections refused so far for protocol version skew. */
  public long versionMismatches() {
    return rpcMetrics.versionMismatches();
  }

  public void start() {
    acceptor = new Thread(this::acceptLoop, name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  private void acceptLoop() {
    while (!closed) {
      SocketChannel ch;
      try {
        ch = server.accept();
      } catch (ClosedChannelException e) {
        return;
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("event=accept_failed server={} error={}", name, e.toString());
        }
        continue;
      }
      try {
        keepAlive(ch);
      } catch (IOException | RuntimeException | LinkageError e) {
        // one connection's setup must never end the accept loop: the process would look alive and
        // serve no one
        LOG.error("event=connection_setup_failed server={} error={}", name, e.toString());
        closeQuietly(ch);
        continue;
      }
      open.add(ch);
      handshaking.addLast(ch);
      while (handshaking.size() > limits.maxHandshaking()) {
        SocketChannel oldest = handshaking.pollFirst();
        if (oldest != null && oldest != ch) {
          evicted.add(oldest);
          closeQuietly(oldest);
        }
      }
      try {
        workers.execute(() -> serve(ch));
      } catch (RejectedExecutionException e) {
        BAD_FRAMES.warn(
            "event=connection_refused server={} reason=no_worker limit={}",
            name,
            workers.getMaximumPoolSize());
        handshaking.remove(ch);
        open.remove(ch);
        closeQuietly(ch);
      }
    }
  }

  /**
   * A peer that vanishes without a FIN (power loss, partition) is found by the kernel instead of
   * never.
   */
  private static void keepAlive(SocketChannel ch) throws IOException {
    ch.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
    try {
      ch.setOption(ExtendedSocketOptions.TCP_KEEPIDLE, 30);
      ch.setOption(ExtendedSocketOptions.TCP_KEEPINTERVAL, 10);
      ch.setOption(ExtendedSocketOptions.TCP_KEEPCOUNT, 3);
    } catch (UnsupportedOperationException e) {
      // the platform's defaults then apply
    }
  }

  private void serve(SocketChannel ch) {
    String remote = "?";
    ConnectionDeadline deadline = new ConnectionDeadline(ch);
    deadline.arm("handshake_timeout", limits.handshakeTimeout().toNanos());
    boolean established = false;
    FrameChannel fc = null;
    try {
      remote = String.valueOf(ch.getRemoteAddress());
      int major = identity.version().protocolMajor();
      fc = new FrameChannel(ch, secrets.tls(), true, major, identity.version().protocolMinor());
      fc.limitBody(ProtocolLimits.MAX_HANDSHAKE_BODY_BYTES);
      Session session = handshaker.handshake(fc, remote, deadline);
      if (session == null) {
        return;
      }
      established = true;
      handshaking.remove(ch);
      fc.limitBody(ProtocolLimits.MAX_BODY_BYTES);
      fc.useBudget(budgetOf(session.peer().role()));
      try {
        serveRequests(fc, session, deadline, major);
      } finally {
        session.ended();
      }
    } catch (ProtocolException e) {
      rpcMetrics.closed("malformed");
      BAD_FRAMES.warn(
          "event=connection_closed server={} peer={} reason=\"malformed frame: {}\"",
          name,
          remote,
          e.getMessage());
    } catch (IOException e) {
      String reason = evicted.remove(ch) ? "handshake_evicted" : deadline.expiredReason();
      if (reason != null && !closed) {
        rpcMetrics.closed(reason);
        BAD_FRAMES.warn(
            "event=connection_closed server={} peer={} reason={}", name, remote, reason);
      } else {
        LOG.debug("event=connection_ended server={} peer={} error={}", name, remote, e.toString());
      }
    } catch (RuntimeException e) {
      rpcMetrics.closed("internal_error");
      LOG.warn("event=connection_closed server={} peer={} reason=internal_error", name, remote, e);
    } finally {
      if (established) {
        sessions.decrementAndGet();
      }
      handshaking.remove(ch);
      evicted.remove(ch);
      open.remove(ch);
      deadline.forget();
      // the one place a connection ends, however it ended: closing the frame channel gives back its
      // budget bytes
      if (fc != null) {
        closeQuietly(fc);
      }
      closeQuietly(ch);
    }
  }

  /**
   * The budget a peer's large bodies take room in: storage nodes and masters (registrations,
   * inventories, heartbeats) have their own, so no number of clients holding the client budget can
   * make control traffic wait. The role is the one the handshake established: with authentication
   * only the cluster key admits STORAGE or MASTER; without it any peer may claim them, as it may
   * claim to be a node at all.
   */
  private BodyBudget budgetOf(Role peerRole) {
    return peerRole == Role.CLIENT ? bodyBudget : controlBudget;
  }

  /**
   * Room left in the clients' body budget (tests: it is whole again once every connection has
   * ended).
   */
  int clientBudgetAvailable() {
    return bodyBudget.available();
  }

  /** Room left in the body budget of storage nodes and masters. */
  int controlBudgetAvailable() {
    return controlBudget.available();
  }

  /** Requests being answered now, over all sessions. */
  int requestsInService() {
    return load.inService();
  }

  /**
   * Answers the session's requests until the peer closes the connection or the server closes. The
   * loop only calls {@link #serveOne}: a loop body that runs for the connection's life would stay
   * interpreted until the JIT compiles the loop on the stack (after tens of thousands of
   * iterations), while a method is compiled after a few hundred calls.
   */
  private void serveRequests(
      FrameChannel fc, Session session, ConnectionDeadline deadline, int major) throws IOException {
    while (!closed && serveOne(fc, session, deadline, major)) {
      // serveOne served one request; the next one
    }
  }

  /** Serves one request; false when the connection ended. */
  private boolean serveOne(FrameChannel fc, Session session, ConnectionDeadline deadline, int major)
      throws IOException {
    deadline.arm("idle", limits.idleTimeout().toNanos());
    if (!fc.awaitFrame()) {
      return false;
    }
    deadline.arm("frame_timeout", limits.frameTimeout().toNanos());
    Frame frame = fc.read();
    deadline.disarm();
    if (frame == null) {
      return false;
    }
    if (frame.header().isResponse()) {
      throw new ProtocolException("unexpected response frame from a client");
    }
    if (frame.header().protocolMajor() != major) {
      throw new ProtocolException(
          "frame protocol major "
              + frame.header().protocolMajor()
              + " differs from "
              + major
              + " agreed in the handshake");
    }
    if (frame.opcode() == null || frame.opcode() == Opcode.HANDSHAKE) {
      session.replyError(
          frame,
          ErrorCode.UNKNOWN_OPCODE,
          "opcode "
              + frame.header().opcode()
              + " is not a request this "
              + identity.role()
              + " serves");
      return true;
    }
    long started = System.nanoTime();
    session.beginRequest();
    try {
      handler.handle(session, frame);
    } finally {
      session.endRequest();
    }
    rpcMetrics.served(frame.opcode(), System.nanoTime() - started, session.requestError());
    return true;
  }

  static void closeQuietly(java.io.Closeable ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // closing a socket that already failed has nothing left to report
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      LOG.debug("event=server_close_failed server={} error={}", name, e.toString());
    }
    for (SocketChannel ch : open) {
      closeQuietly(ch);
    }
    handshaking.clear();
    workers.shutdownNow();
    try {
      // handlers may hold views of native memory; let them finish before the owner unmaps it
      workers.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
