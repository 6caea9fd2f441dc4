package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.GrantSigner;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.Location;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.SegmentInfo;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's connection to the master: registers (with its inventory), heartbeats, re-registers when the master
 * no longer knows it, and applies the master's list of released replicas to the inventory.
 */
final class MasterLink implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MasterLink.class);
  private static final Duration RPC_TIMEOUT = Duration.ofSeconds(5);

  private final HostPort master;
  private final String configuredPoolId;
  private final String nodeId;
  private final String endpoint;
  private final List<SegmentInfo> segments;
  private final ObjectInventory inventory;
  private final Duration interval;
  private final CountDownLatch registered = new CountDownLatch(1);
  private final CountDownLatch settled = new CountDownLatch(1); // registered, or refused for its configured pool
  private final Thread thread;
  private volatile GrantSigner signer;
  private volatile String poolId;
  private volatile HandshakeException poolRefusal;
  private volatile long viewNumber = -1;
  private volatile boolean closed;
  private RpcConnection connection;

  MasterLink(HostPort master, String poolId, String nodeId, String endpoint, List<SegmentInfo> segments,
             ObjectInventory inventory, Duration interval) {
    this.master = master;
    this.configuredPoolId = poolId;
    this.poolId = poolId;
    this.nodeId = nodeId;
    this.endpoint = endpoint;
    this.segments = segments;
    this.inventory = inventory;
    this.interval = interval;
    this.thread = new Thread(this::run, "storage-master-link");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * Blocks until the first registration succeeded (true), the master refused the node's configured pool id (false,
   * see {@link #poolRefusal}; the link then stops) or the timeout passed (false).
   */
  boolean awaitRegistered(Duration timeout) throws InterruptedException {
    settled.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    return registered.getCount() == 0;
  }

  /** Why the master refused the pool id given with {@code --pool-id} before the first registration, or null. */
  HandshakeException poolRefusal() {
    return poolRefusal;
  }

  boolean isRegistered() {
    return registered.getCount() == 0 && signer != null;
  }

  GrantSigner signer() {
    return signer;
  }

  String poolId() {
    return poolId;
  }

  private void run() {
    boolean needRegister = true;
    long backoff = 100;
    while (!closed) {
      try {
        if (connection == null || !connection.isUsable()) {
          connection = RpcConnection.open(master, new Handshake(VersionInfo.CURRENT, Role.STORAGE, poolId, nodeId),
              RPC_TIMEOUT);
          if (configuredPoolId.isEmpty()) {
            poolId = connection.peer().poolId();
          }
        }
        if (needRegister) {
          register();
          needRegister = false;
        }
        needRegister = !heartbeat();
        backoff = 100;
        if (!needRegister) {
          Thread.sleep(interval.toMillis());
        }
      } catch (InterruptedException e) {
        return;
      } catch (HandshakeException e) {
        LOG.error("event=master_refused_node master={} node={} reason=\"{}\"", master, nodeId, e.getMessage());
        if (e.code() == ErrorCode.POOL_MISMATCH && !configuredPoolId.isEmpty() && registered.getCount() > 0) {
          // a node started for another pool is misconfigured: waiting will not fix it, so stop and let start() fail
          poolRefusal = e;
          settled.countDown();
          return;
        }
        backoff = sleepBackoff(Math.max(backoff, 5_000));
      } catch (IOException | RuntimeException e) {
        if (!closed) {
          LOG.warn("event=master_unreachable master={} node={} error=\"{}\"", master, nodeId, e.getMessage());
        }
        closeConnection();
        needRegister = needRegister || signer == null;
        backoff = sleepBackoff(backoff);
      }
    }
  }

  private long sleepBackoff(long backoff) {
    try {
      Thread.sleep(backoff);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
    return Math.min(backoff * 2, 2_000);
  }

  private void register() throws IOException {
    BodyWriter w = new BodyWriter();
    new RegisterNode(nodeId, endpoint, segments, inventory.entries()).encode(w);
    try (RpcConnection.Deadline d = connection.deadline(RPC_TIMEOUT)) {
      Frame reply = connection.call(Opcode.REGISTER_NODE, w);
      RegisterReply r = RegisterReply.decode(reply.reader());
      signer = new GrantSigner(r.grantKey());
      viewNumber = r.viewNumber();
    }
    LOG.info("event=registered master={} node={} pool={} view={} inventory={}", master, nodeId, poolId, viewNumber,
        inventory.size());
    registered.countDown();
    settled.countDown();
  }

  /** False when the master asks for a new registration. */
  private boolean heartbeat() throws IOException {
    BodyWriter w = new BodyWriter();
    new Heartbeat(nodeId, viewNumber).encode(w);
    HeartbeatReply reply;
    try (RpcConnection.Deadline d = connection.deadline(RPC_TIMEOUT)) {
      reply = HeartbeatReply.decode(connection.call(Opcode.HEARTBEAT, w).reader());
    }
    for (Location l : reply.released()) {
      inventory.drop(l);
    }
    if (!reply.known() || reply.viewNumber() != viewNumber) {
      LOG.info("event=reregistering node={} reason={}", nodeId, reply.known() ? "new_master_view" : "unknown_to_master");
      return false;
    }
    return true;
  }

  private void closeConnection() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
    closeConnection();
  }
}
