package io.kvpool.master;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReleaseRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.rpc.RateLimitedLog;
import io.kvpool.security.PoolSecrets;
import io.prometheus.metrics.core.metrics.Counter;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a REMOVE's releases to the storage nodes holding the removed objects before the REMOVE
 * is answered (RELEASE), so that each node keeps its tombstone, which the next leader learns from
 * its inventory, before the client is told the object is gone: a remove then survives the loss of
 * the leader that answered it. The nodes are reached in parallel over one connection per node and
 * view, kept open; {@link #PUSH_TIMEOUT} bounds the wait. A node not reached in time, or of an
 * earlier release (UNKNOWN_OPCODE), still takes the releases in its next heartbeat reply, where
 * they stay queued. Bounded: a node whose push failed is left to its heartbeat for a while, and
 * sends beyond a small queue are skipped (counted), so a frozen node under many removes builds no
 * backlog.
 */
final class ReleasePusher implements AutoCloseable {
  static final Duration PUSH_TIMEOUT = Duration.ofSeconds(1);
  private static final Logger LOG = LoggerFactory.getLogger(ReleasePusher.class);
  private static final RateLimitedLog FAILURES = new RateLimitedLog(LOG, 5_000);

  /** One kept connection to a node, for one master view; calls on it take turns. */
  private static final class NodeChannel {
    RpcConnection connection;
    long view;
  }

  private final Handshake identity;
  private final PoolSecrets secrets;
  private final Counter pushes;
  private final Map<String, NodeChannel> channels = new ConcurrentHashMap<>();

  /**
   * Nodes whose last push failed, and until when (nanoTime) no push is tried there: their heartbeat
   * carries them.
   */
  private final Map<String, Long> quietUntil = new ConcurrentHashMap<>();

  private final long quietNanos;

  /**
   * Four senders and at most {@link #MAX_QUEUED} sends waiting: beyond that a push is skipped, not
   * queued.
   */
  private final ThreadPoolExecutor senders =
      new ThreadPoolExecutor(
          4,
          4,
          0,
          TimeUnit.MILLISECONDS,
          new ArrayBlockingQueue<>(MAX_QUEUED),
          r -> {
            Thread t = new Thread(r, "master-release");
            t.setDaemon(true);
            return t;
          });

  static final int MAX_QUEUED = 256;

  ReleasePusher(String poolId, PoolSecrets secrets, Counter pushes) {
    this(poolId, secrets, pushes, PUSH_TIMEOUT);
  }

  /**
   * {@code quietAfterFailure}: how long a node whose push failed is not pushed to (its heartbeat
   * carries them).
   */
  ReleasePusher(String poolId, PoolSecrets secrets, Counter pushes, Duration quietAfterFailure) {
    this.identity = new Handshake(VersionInfo.CURRENT, Role.MASTER, poolId, "master");
    this.secrets = secrets;
    this.pushes = pushes;
    this.quietNanos = quietAfterFailure.toNanos();
  }

  /**
   * Sends each node its releases and waits until all took them, failed, or {@link #PUSH_TIMEOUT}
   * passed.
   */
  void push(Map<String, List<Release>> byEndpoint, long view) {
    if (byEndpoint.isEmpty()) {
      return;
    }
    List<Future<Boolean>> sent = new ArrayList<>(byEndpoint.size());
    long now = System.nanoTime();
    byEndpoint.forEach(
        (endpoint, releases) -> {
          Long quiet = quietUntil.get(endpoint);
          if (quiet != null && quiet - now > 0) {
            pushes
                .labelValues("skipped")
                .inc(); // failed a moment ago: a frozen node would hold every remove for nothing
            return;
          }
          try {
            sent.add(senders.submit(() -> send(endpoint, releases, view)));
          } catch (RejectedExecutionException e) {
            pushes.labelValues("skipped").inc(); // senders saturated: never an unbounded backlog
          }
        });
    long deadline = System.nanoTime() + PUSH_TIMEOUT.toNanos();
    for (Future<Boolean> f : sent) {
      try {
        boolean delivered = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        pushes.labelValues(delivered ? "delivered" : "failed").inc();
      } catch (TimeoutException e) {
        pushes
            .labelValues("timed_out")
            .inc(); // the send goes on; the heartbeat carries the releases anyway
      } catch (ExecutionException e) {
        pushes.labelValues("failed").inc();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private boolean send(String endpoint, List<Release> releases, long view) {
    NodeChannel channel = channels.computeIfAbsent(endpoint, e -> new NodeChannel());
    synchronized (channel) {
      try {
        if (channel.connection == null || channel.view != view) {
          closeQuietly(channel);
          channel.connection =
              RpcConnection.open(
                  HostPort.parse(endpoint), identity, view, secrets.outbound(), PUSH_TIMEOUT);
          channel.view = view;
        }
        BodyWriter w = new BodyWriter(32 + releases.size() * 64);
        new ReleaseRequest(releases).encode(w, channel.connection.agreedMinor());
        try (RpcConnection.Deadline d = channel.connection.deadline(PUSH_TIMEOUT)) {
          channel.connection.call(Opcode.RELEASE, w);
        }
        quietUntil.remove(endpoint);
        return true;
      } catch (IOException | RuntimeException e) {
        closeQuietly(channel);
        channels.remove(endpoint, channel);
        quietUntil.put(endpoint, System.nanoTime() + quietNanos);
        FAILURES.warn(
            "event=release_push_failed node={} releases={} error=\"{}\" (the node takes them with its next"
                + " heartbeat)",
            endpoint,
            releases.size(),
            e.getMessage());
        return false;
      }
    }
  }

  private static void closeQuietly(NodeChannel channel) {
    if (channel.connection != null) {
      channel.connection.close();
      channel.connection = null;
    }
  }

  @Override
  public void close() {
    senders.shutdownNow();
    channels
        .values()
        .forEach(
            c -> {
              synchronized (c) {
                closeQuietly(c);
              }
            });
    channels.clear();
  }
}
