package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.IdleConnections;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;

/** Pooled connections to storage nodes, reused across requests and threads. */
final class StorageConnections implements AutoCloseable {
  private static final int MAX_IDLE_PER_NODE = 16;

  private final Supplier<Handshake> local;
  private final ConnectionSecurity security;
  private final Duration timeout;
  private final IdleConnections idle =
      new IdleConnections(MAX_IDLE_PER_NODE, Duration.ofSeconds(60));
  private final boolean batchRequests;
  private final ClientMetrics metrics;
  private final ReplyCollectors collectors = new ReplyCollectors();
  private final FailedNodes failed;

  StorageConnections(
      Supplier<Handshake> local,
      ConnectionSecurity security,
      Duration timeout,
      boolean batchRequests,
      Duration failedNodeMemory,
      ClientMetrics metrics) {
    this.security = security;
    this.batchRequests = batchRequests;
    this.metrics = metrics;
    this.local = local;
    this.timeout = timeout;
    this.failed = new FailedNodes(System::nanoTime, failedNodeMemory, metrics::nodeFailed);
  }

  /**
   * Whether a connection to a node may carry READ_BATCH / WRITE_BATCH: the client allows it and the
   * node speaks 2.1.
   */
  boolean batches(RpcConnection c) {
    return batchRequests && c.agreedMinor() >= 1;
  }

  /** Records one exchange with a node (all of a node's requests of one batch count as one). */
  void exchanged(io.kvpool.protocol.Opcode op, long startedNanos) {
    metrics.exchange(op, System.nanoTime() - startedNanos);
  }

  /** Threads that take in replies of several nodes at once. */
  ReplyCollectors collectors() {
    return collectors;
  }

  /** Nodes whose connection failed or timed out lately: gets read them last, puts avoid them. */
  FailedNodes failed() {
    return failed;
  }

  RpcConnection borrow(String endpoint) {
    HostPort hp = HostPort.parse(endpoint);
    try {
      return idle.borrow(endpoint, () -> RpcConnection.open(hp, local.get(), 0, security, timeout));
    } catch (IOException e) {
      throw Failures.translate(e, hp, "connecting to storage node");
    }
  }

  /**
   * Returns a connection borrowed for {@code endpoint} (the same string), or closes it when it is
   * not reusable.
   */
  void release(String endpoint, RpcConnection c) {
    idle.release(endpoint, c);
  }

  @Override
  public void close() {
    idle.close();
    collectors.close();
  }
}
