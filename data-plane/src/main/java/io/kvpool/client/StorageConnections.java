package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Supplier;

/** Pooled connections to storage nodes, reused across requests and threads. */
final class StorageConnections implements AutoCloseable {
  private static final int MAX_IDLE_PER_NODE = 16;

  private final Supplier<Handshake> local;
  private final Duration timeout;
  private final Map<String, Deque<RpcConnection>> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  StorageConnections(Supplier<Handshake> local, Duration timeout) {
    this.local = local;
    this.timeout = timeout;
  }

  RpcConnection borrow(String endpoint) {
    Deque<RpcConnection> q = idle.get(endpoint);
    RpcConnection c;
    while (q != null && (c = q.pollFirst()) != null) {
      if (c.isUsable()) {
        return c;
      }
      c.close();
    }
    HostPort hp = HostPort.parse(endpoint);
    try {
      return RpcConnection.open(hp, local.get(), timeout);
    } catch (IOException e) {
      throw Failures.translate(e, hp, "connecting to storage node");
    }
  }

  /** Returns a connection borrowed for {@code endpoint} (the same string), or closes it when it is not reusable. */
  void release(String endpoint, RpcConnection c) {
    Deque<RpcConnection> q = idle.computeIfAbsent(endpoint, k -> new ConcurrentLinkedDeque<>());
    if (closed || !c.isUsable() || q.size() >= MAX_IDLE_PER_NODE) {
      c.close();
    } else {
      q.offerFirst(c);
    }
  }

  @Override
  public void close() {
    closed = true;
    idle.values().forEach(q -> q.forEach(RpcConnection::close));
    idle.clear();
  }
}
