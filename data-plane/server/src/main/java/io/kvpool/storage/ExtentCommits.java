package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.ExtentCommit;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.StatusList;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Commits the values written into extents at the leader and waits for its answer (EXTENT_COMMIT,
 * protocol 2.4), on a connection of their own so that the link's heartbeats stay in step. Values of
 * concurrent writes go together: whichever writer finds no commit in flight sends everything queued
 * as one request, and each writer gets its own item's status. A null status means the answer is
 * unknown (the connection failed, the master is not the leader, or the registration changed): the
 * master may or may not have registered the value, and the node's next inventory decides.
 */
final class ExtentCommits implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private record Queued(
      byte[] registrationId, ExtentCommit.Item item, CompletableFuture<Answer> answer) {}

  /** The master's status for one value (null: unknown) and its message. */
  record Answer(ErrorCode status, String message) {}

  private final MasterLink link;
  private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
  private final Object sending = new Object();
  private RpcConnection connection;

  ExtentCommits(MasterLink link) {
    this.link = link;
  }

  /**
   * Commits one value admitted under registration {@code registrationId}; blocks for the answer.
   */
  Answer commit(byte[] registrationId, ExtentCommit.Item item) {
    Queued q = new Queued(registrationId, item, new CompletableFuture<>());
    queue.add(q);
    synchronized (sending) {
      while (!q.answer().isDone() && !queue.isEmpty()) {
        sendQueued();
      }
    }
    return q.answer().join();
  }

  /** Under {@link #sending}: one EXTENT_COMMIT of the queued values of one registration. */
  private void sendQueued() {
    List<Queued> batch = new ArrayList<>();
    byte[] registration = queue.peek().registrationId();
    for (Queued q = queue.peek();
        q != null && q.registrationId() == registration && batch.size() < ProtocolLimits.MAX_BATCH;
        q = queue.peek()) {
      batch.add(queue.poll());
    }
    List<ExtentCommit.Item> items = new ArrayList<>(batch.size());
    batch.forEach(q -> items.add(q.item()));
    BodyWriter w = new BodyWriter(64 + 64 * items.size());
    new ExtentCommit(link.nodeId(), registration, items).encode(w);
    String failure;
    try {
      RpcConnection c = connection();
      try (RpcConnection.Deadline d = c.deadline(TIMEOUT)) {
        List<ErrorCode> statuses =
            StatusList.decode(c.call(Opcode.EXTENT_COMMIT, w).reader()).statuses();
        if (statuses.size() == batch.size()) {
          for (int i = 0; i < batch.size(); i++) {
            batch.get(i).answer().complete(new Answer(statuses.get(i), "the master refused it"));
          }
          return;
        }
        failure = "the master answered " + statuses.size() + " statuses for " + batch.size();
      }
    } catch (io.kvpool.protocol.RemoteErrorException e) {
      failure = e.code() + ": " + e.remoteMessage();
    } catch (IOException | RuntimeException e) {
      closeConnection();
      failure = e.toString();
    }
    for (Queued q : batch) {
      q.answer().complete(new Answer(null, failure));
    }
  }

  /** The connection to the master the link follows, opened again when that changed or failed. */
  private RpcConnection connection() throws IOException {
    HostPort master = link.masterEndpoint();
    if (master == null) {
      throw new IOException("not connected to a master");
    }
    if (connection == null || !connection.isUsable() || !connection.endpoint().equals(master)) {
      closeConnection();
      connection =
          RpcConnection.open(
              master,
              new Handshake(VersionInfo.CURRENT, Role.STORAGE, link.poolId(), link.nodeId()),
              0,
              link.outbound(),
              TIMEOUT);
    }
    return connection;
  }

  private void closeConnection() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }

  @Override
  public void close() {
    synchronized (sending) {
      closeConnection();
    }
  }
}
