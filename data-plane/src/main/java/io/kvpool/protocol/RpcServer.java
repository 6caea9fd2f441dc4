package io.kvpool.protocol;

import io.kvpool.common.HostPort;
import io.kvpool.common.MetricsRegistry;
import io.kvpool.common.RateLimitedLog;
import io.kvpool.common.VersionInfo;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Accepts connections and serves each on a thread of a bounded pool (blocking NIO: simple and fast enough on
 * loopback). Runs the handshake, then hands every well-formed request frame to the handler. A malformed frame
 * closes only its connection.
 */
public final class RpcServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RpcServer.class);
  private static final RateLimitedLog BAD_FRAMES = new RateLimitedLog(LOG, 5_000);

  /** Serves one request frame; must write exactly one reply (or throw to close the connection). */
  @FunctionalInterface
  public interface RequestHandler {
    void handle(Session session, Frame request) throws IOException;
  }

  /** What this server says in handshakes. The pool id may be learned later (storage nodes learn it from the master). */
  public record Identity(VersionInfo version, Role role, Supplier<String> poolId, String id) {
    Handshake handshake() {
      return new Handshake(version, role, poolId.get(), id);
    }
  }

  private final String name;
  private final Identity identity;
  private final RequestHandler handler;
  private final ServerSocketChannel server;
  private final ThreadPoolExecutor workers;
  private final MetricsRegistry.Counter versionMismatches;
  private final Set<String> refusedPeersLogged = ConcurrentHashMap.newKeySet();
  private final Set<SocketChannel> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  private Thread acceptor;

  public RpcServer(String name, String host, int port, Identity identity, RequestHandler handler, int maxConnections,
                   MetricsRegistry.Counter versionMismatches) throws IOException {
    this.name = name;
    this.identity = identity;
    this.handler = handler;
    this.versionMismatches = versionMismatches;
    this.server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress(host, port), 256);
    AtomicInteger n = new AtomicInteger();
    this.workers = new ThreadPoolExecutor(0, maxConnections, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, name + "-conn-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  public HostPort endpoint() throws IOException {
    return HostPort.of((InetSocketAddress) server.getLocalAddress());
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
        workers.execute(() -> serve(ch));
      } catch (RejectedExecutionException e) {
        BAD_FRAMES.warn("event=connection_refused server={} reason=too_many_connections limit={}", name,
            workers.getMaximumPoolSize());
        closeQuietly(ch);
      }
    }
  }

  private void serve(SocketChannel ch) {
    open.add(ch);
    String remote = "?";
    try {
      remote = String.valueOf(ch.getRemoteAddress());
      int major = identity.version().protocolMajor();
      FrameChannel fc = new FrameChannel(ch, major, identity.version().protocolMinor());
      Session session = handshake(fc, remote);
      if (session == null) {
        return;
      }
      while (!closed) {
        Frame frame = fc.read();
        if (frame == null) {
          return;
        }
        if (frame.header().isResponse()) {
          throw new ProtocolException("unexpected response frame from a client");
        }
        if (frame.header().protocolMajor() != major) {
          throw new ProtocolException("frame protocol major " + frame.header().protocolMajor() + " differs from "
              + major + " agreed in the handshake");
        }
        if (frame.opcode() == null || frame.opcode() == Opcode.HANDSHAKE) {
          session.replyError(frame, ErrorCode.UNKNOWN_OPCODE, "opcode " + frame.header().opcode()
              + " is not a request this " + identity.role() + " serves");
          continue;
        }
        handler.handle(session, frame);
      }
    } catch (ProtocolException e) {
      BAD_FRAMES.warn("event=connection_closed server={} peer={} reason=\"malformed frame: {}\"", name, remote,
          e.getMessage());
    } catch (IOException e) {
      LOG.debug("event=connection_ended server={} peer={} error={}", name, remote, e.toString());
    } catch (RuntimeException e) {
      LOG.warn("event=connection_closed server={} peer={} reason=internal_error", name, remote, e);
    } finally {
      open.remove(ch);
      closeQuietly(ch);
    }
  }

  private Session handshake(FrameChannel fc, String remote) throws IOException {
    Frame first = fc.read();
    if (first == null) {
      return null;
    }
    if (first.opcode() != Opcode.HANDSHAKE || first.header().isResponse()) {
      throw new ProtocolException("first frame has opcode " + first.header().opcode() + ", expected HANDSHAKE");
    }
    Handshake peer = Handshake.decode(first.reader());
    Handshake local = identity.handshake();
    Session session = new Session(fc, peer, remote);
    HandshakeException refusal = HandshakeRules.check(local, peer);
    if (refusal != null) {
      if (refusal.code() == ErrorCode.VERSION_MISMATCH && versionMismatches != null) {
        versionMismatches.inc();
      }
      if (refusedPeersLogged.add(peer.peerId() + "@" + remote.replaceAll(":\\d+$", "") + "/" + peer.version())) {
        LOG.warn("event=handshake_refused server={} peer={} peerId={} peerRole={} reason=\"{}\"", name, remote,
            peer.peerId(), peer.role(), refusal.getMessage());
      }
      session.replyError(first, refusal.code(), refusal.getMessage());
      return null;
    }
    BodyWriter w = new BodyWriter();
    local.encode(w);
    session.reply(first, w);
    return session;
  }

  private static void closeQuietly(SocketChannel ch) {
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
    workers.shutdownNow();
    try {
      // handlers may hold views of native memory; let them finish before the owner unmaps it
      workers.awaitTermination(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
