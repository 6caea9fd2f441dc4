package io.kvpool.protocol;

import java.io.IOException;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * Connections to peers kept for reuse after an exchange that left them in step: at most {@code
 * perPeer} idle ones per peer key, each reused only within {@code maxIdle} (well inside a server's
 * idle timeout), so steady traffic to a peer does not pay a handshake and fresh buffers per call.
 * Thread-safe; a connection is used by one caller at a time.
 */
public final class IdleConnections implements AutoCloseable {
  /** Opens a new connection to the peer a key names. */
  public interface Opener {
    RpcConnection open() throws IOException;
  }

  private record Idle(RpcConnection connection, long sinceNanos) {}

  private final int perPeer;
  private final long maxIdleNanos;
  private final Map<String, Deque<Idle>> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public IdleConnections(int perPeer, Duration maxIdle) {
    this.perPeer = perPeer;
    this.maxIdleNanos = maxIdle.toNanos();
  }

  /** An idle, usable connection for {@code peer}, or a new one from {@code opener}. */
  public RpcConnection borrow(String peer, Opener opener) throws IOException {
    Deque<Idle> q = idle.get(peer);
    Idle i;
    while (q != null && (i = q.pollFirst()) != null) {
      if (i.connection().isUsable() && System.nanoTime() - i.sinceNanos() < maxIdleNanos) {
        return i.connection();
      }
      i.connection().close();
    }
    return opener.open();
  }

  /**
   * Takes back a connection borrowed for {@code peer}: kept when its last exchange left it in step
   * and there is room, closed otherwise.
   */
  public void release(String peer, RpcConnection c) {
    Deque<Idle> q = idle.computeIfAbsent(peer, k -> new ConcurrentLinkedDeque<>());
    if (closed || !c.isUsable() || q.size() >= perPeer) {
      c.close();
    } else {
      q.offerFirst(new Idle(c, System.nanoTime()));
      if (closed) {
        close(); // closed meanwhile: leave nothing open behind it
      }
    }
  }

  /** How many connections are idle now, over every peer. */
  public int idleCount() {
    return idle.values().stream().mapToInt(Deque::size).sum();
  }

  @Override
  public void close() {
    closed = true;
    for (Deque<Idle> q : idle.values()) {
      Idle i;
      while ((i = q.pollFirst()) != null) {
        i.connection().close();
      }
    }
  }
}
