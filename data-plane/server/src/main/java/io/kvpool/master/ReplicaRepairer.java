package io.kvpool.master;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.IdleConnections;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReceiptReply;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.rpc.RateLimitedLog;
import io.kvpool.security.PoolSecrets;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the leader's periodic work: every tick it lets {@link PoolMetadata} do its bounded
 * housekeeping, then asks a live holder of each under-replicated object to copy it to the newly
 * allocated target (storage-to-storage) and hands the target's receipt back to the metadata.
 */
final class ReplicaRepairer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaRepairer.class);
  private static final Duration COPY_TIMEOUT = Duration.ofSeconds(30);
  private static final int COPIERS = 4;
  private static final RateLimitedLog COPY_FAILURES = new RateLimitedLog(LOG, 2_000);

  private final Supplier<PoolMetadata> metadata;
  private final Handshake identity;
  private final PoolSecrets secrets;
  private final ScheduledExecutorService ticker =
      Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "master-tick"));
  private final ExecutorService copiers =
      Executors.newFixedThreadPool(COPIERS, r -> daemon(r, "master-repair"));

  /** Connections to copy sources, kept for reuse a few seconds: one per copier and node at most. */
  private final IdleConnections sources = new IdleConnections(COPIERS, Duration.ofSeconds(5));

  /** The view the idle source connections were opened in. */
  private final AtomicLong sourcesView = new AtomicLong();

  ReplicaRepairer(Supplier<PoolMetadata> metadata, String poolId, PoolSecrets secrets) {
    this.metadata = metadata;
    this.secrets = secrets;
    this.identity = new Handshake(VersionInfo.CURRENT, Role.MASTER, poolId, "master");
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  void start(Duration period) {
    ticker.scheduleWithFixedDelay(
        this::tick, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    PoolMetadata m = metadata.get();
    if (m == null) {
      return; // standing by
    }
    try {
      List<RepairTask> tasks = m.tick();
      for (RepairTask t : tasks) {
        copiers.execute(() -> m.repairDone(t, copy(t)));
      }
    } catch (RuntimeException e) {
      LOG.error("event=master_tick_failed", e);
    }
  }

  /** The target's receipt, or null when the copy failed. */
  private byte[] copy(RepairTask t) {
    PoolMetadata m = metadata.get();
    long view = m == null ? 0 : m.view();
    String peer = t.sourceEndpoint();
    if (sourcesView.getAndSet(view) != view) {
      sources.closeIdle(); // a connection speaks for the view it was opened in
    }
    RpcConnection c = null;
    try {
      c =
          sources.borrow(
              peer,
              () ->
                  RpcConnection.open(
                      HostPort.parse(t.sourceEndpoint()),
                      identity,
                      view,
                      secrets.outbound(),
                      COPY_TIMEOUT));
      byte[] receipt;
      try (RpcConnection.Deadline d = c.deadline(COPY_TIMEOUT)) {
        BodyWriter w = new BodyWriter();
        t.request().encode(w);
        receipt = ReceiptReply.decode(c.call(Opcode.REPLICATE, w).reader()).receipt();
      }
      LOG.debug(
          "event=replica_copied key={} from={} to={}",
          t.key(),
          t.source().nodeId(),
          t.target().nodeId());
      return receipt;
    } catch (IOException | RuntimeException e) {
      COPY_FAILURES.warn(
          "event=replica_copy_failed key={} from={} to={} error=\"{}\"",
          t.key(),
          t.source().nodeId(),
          t.target().nodeId(),
          e.getMessage());
      return null;
    } finally {
      if (c != null) {
        sources.release(peer, c); // closed unless in step
      }
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    copiers.shutdownNow();
    sources.close();
  }
}
