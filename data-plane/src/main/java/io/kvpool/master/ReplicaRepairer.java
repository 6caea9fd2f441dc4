package io.kvpool.master;

import io.kvpool.common.HostPort;
import io.kvpool.common.RateLimitedLog;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReplicateRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the master's periodic work: every tick it lets {@link PoolMetadata} expire nodes, puts and space, then asks
 * a surviving holder of each under-replicated object to copy it to the newly allocated target (storage-to-storage).
 */
final class ReplicaRepairer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReplicaRepairer.class);
  private static final Duration COPY_TIMEOUT = Duration.ofSeconds(30);
  private static final RateLimitedLog COPY_FAILURES = new RateLimitedLog(LOG, 2_000);

  private final PoolMetadata metadata;
  private final Handshake identity;
  private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "master-tick"));
  private final ExecutorService copiers = Executors.newFixedThreadPool(4, r -> daemon(r, "master-repair"));

  ReplicaRepairer(PoolMetadata metadata, String poolId) {
    this.metadata = metadata;
    this.identity = new Handshake(VersionInfo.CURRENT, Role.MASTER, poolId, "master");
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  void start(Duration period) {
    ticker.scheduleWithFixedDelay(this::tick, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      List<RepairTask> tasks = metadata.tick();
      for (RepairTask t : tasks) {
        copiers.execute(() -> metadata.repairDone(t, copy(t)));
      }
    } catch (RuntimeException e) {
      LOG.error("event=master_tick_failed", e);
    }
  }

  private boolean copy(RepairTask t) {
    try (RpcConnection c = RpcConnection.open(HostPort.parse(t.sourceEndpoint()), identity, COPY_TIMEOUT);
         RpcConnection.Deadline d = c.deadline(COPY_TIMEOUT)) {
      BodyWriter w = new BodyWriter();
      new ReplicateRequest(t.key(), t.size(), t.checksum(), t.source().slices(), t.targetGrant()).encode(w);
      c.call(Opcode.REPLICATE, w);
      LOG.debug("event=replica_copied key={} from={} to={}", t.key(), t.source().nodeId(), t.target().nodeId());
      return true;
    } catch (IOException | RuntimeException e) {
      COPY_FAILURES.warn("event=replica_copy_failed key={} from={} to={} error=\"{}\"", t.key(), t.source().nodeId(),
          t.target().nodeId(), e.getMessage());
      return false;
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    copiers.shutdownNow();
  }
}
