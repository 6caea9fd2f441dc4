package io.kvpool.master;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReleaseRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.rpc.RateLimitedLog;
import io.kvpool.security.PoolSecrets;
import io.prometheus.metrics.core.metrics.Counter;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
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
 * the leader that answered it. {@link ReleasePushLimits#pushTimeout} bounds the wait. A node not
 * reached in time, or of an earlier release (UNKNOWN_OPCODE), still takes the releases in its next
 * heartbeat reply, where they stay queued.
 *
 * <p>Each node has its own lane: one kept connection per node and view (opened anew after {@link
 * ReleasePushLimits#keptIdle} unused), one send in flight at a time, and at most {@link
 * ReleasePushLimits#waitingPerNode} REMOVEs' releases waiting behind it, which the next send
 * carries together (up to {@link ProtocolLimits#MAX_BATCH} releases). A REMOVE that finds a lane
 * idle sends its own releases there from its own thread, within its wait; what queues behind that
 * send goes to a sender thread. So a frozen node holds one thread (a sender or one REMOVE's, for
 * the push timeout), never the other nodes' pushes; what overflows its lane is skipped, and a node
 * whose push failed or timed out is skipped for a quiet period: no backlog, and a REMOVE pays the
 * wait for a frozen node once per quiet period, not every time. The bounds are the master's {@link
 * MasterConfig#releasePush}.
 */
final class ReleasePusher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ReleasePusher.class);
  private static final RateLimitedLog FAILURES = new RateLimitedLog(LOG, 5_000);

  /**
   * What became of one REMOVE's releases for one node: the label of kvpool_release_pushes_total.
   */
  enum Outcome {
    DELIVERED,
    FAILED,
    TIMED_OUT,
    SKIPPED;

    String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One REMOVE's releases for one node, waiting in its lane. */
  private record Pending(List<Release> releases, long view, CompletableFuture<Outcome> done) {}

  /** One node's sends: taken in turns by one sender at a time. */
  private static final class NodeLane {
    final String endpoint;
    final ArrayDeque<Pending> waiting = new ArrayDeque<>(); // guarded by this
    boolean sending; // guarded by this
    RpcConnection connection; // used by the one sender of the lane only; closed under its lock
    long connectionView;
    long lastUsedNanos;

    NodeLane(String endpoint) {
      this.endpoint = endpoint;
    }
  }

  private final Handshake identity;
  private final PoolSecrets secrets;
  private final Counter pushes;
  private final ReleasePushLimits limits;
  private final Map<String, NodeLane> lanes = new ConcurrentHashMap<>();

  /** Nodes whose last push failed or timed out, and until when (nanoTime) none is tried there. */
  private final Map<String, Long> quietUntil = new ConcurrentHashMap<>();

  /** Set by {@link #close}: no REMOVE thread claims a lane afterwards. */
  private volatile boolean closed;

  /** At most one queued task per node (its lane's drain), so the queue is as long as the nodes. */
  private final ExecutorService senders;

  ReleasePusher(String poolId, PoolSecrets secrets, Counter pushes, ReleasePushLimits limits) {
    this.identity = new Handshake(VersionInfo.CURRENT, Role.MASTER, poolId, "master");
    this.secrets = secrets;
    this.pushes = pushes;
    this.limits = limits;
    this.senders =
        new ThreadPoolExecutor(
            limits.senders(),
            limits.senders(),
            0,
            TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(),
            r -> {
              Thread t = new Thread(r, "master-release");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Sends each node its releases and waits until all took them, failed, or the push timeout passed.
   * The calling thread sends to the first node whose lane is idle itself (no hand-off to a sender
   * thread and back: two wake-ups fewer per REMOVE); the other nodes' lanes send at the same time.
   */
  void push(Map<String, List<Release>> byEndpoint, long view) {
    if (byEndpoint.isEmpty()) {
      return;
    }
    long deadline = System.nanoTime() + limits.pushTimeout().toNanos();
    Map<String, CompletableFuture<Outcome>> sent = new java.util.HashMap<>();
    NodeLane own = null;
    List<Release> ownReleases = null;
    for (Map.Entry<String, List<Release>> e : byEndpoint.entrySet()) {
      String endpoint = e.getKey();
      if (quiet(endpoint)) {
        count(Outcome.SKIPPED); // failed a moment ago: would hold every REMOVE for nothing
        continue;
      }
      NodeLane lane = lanes.computeIfAbsent(endpoint, NodeLane::new);
      if (own == null && claim(lane)) {
        own = lane;
        ownReleases = e.getValue();
        continue;
      }
      Pending p = new Pending(e.getValue(), view, new CompletableFuture<>());
      if (enqueue(lane, p)) {
        sent.put(endpoint, p.done());
      } else {
        count(Outcome.SKIPPED); // its lane is full: never an unbounded backlog
      }
    }
    if (own != null) {
      count(sendOwn(own, ownReleases, view, deadline));
    }
    for (Map.Entry<String, CompletableFuture<Outcome>> e : sent.entrySet()) {
      try {
        count(e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException x) {
        // the send may go on; the heartbeat carries the releases anyway, and the next REMOVEs
        // do not wait for this node again before its quiet period ends
        quietUntil.put(e.getKey(), System.nanoTime() + limits.quietAfterFailure().toNanos());
        count(Outcome.TIMED_OUT);
      } catch (ExecutionException x) {
        count(Outcome.FAILED);
      } catch (InterruptedException x) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** Makes the calling thread the sender of an idle lane; false if a send is in flight there. */
  private boolean claim(NodeLane lane) {
    synchronized (lane) {
      if (lane.sending || closed) {
        return false;
      }
      lane.sending = true;
      return true;
    }
  }

  /**
   * Sends one REMOVE's releases to the node of a lane this thread claimed, by {@code deadline};
   * then hands what queued behind it meanwhile to a sender thread.
   */
  private Outcome sendOwn(NodeLane lane, List<Release> releases, long view, long deadline) {
    try {
      Outcome o = send(lane, view, releases, deadline);
      return o == Outcome.FAILED && deadline - System.nanoTime() <= 0 ? Outcome.TIMED_OUT : o;
    } finally {
      boolean more;
      synchronized (lane) {
        more = !lane.waiting.isEmpty();
        lane.sending = more;
      }
      boolean drained = more && startDrain(lane);
      if (!drained && closed) {
        closeConnection(lane); // close() left the connection to this sender
      }
    }
  }

  private boolean quiet(String endpoint) {
    Long until = quietUntil.get(endpoint);
    return until != null && until - System.nanoTime() > 0;
  }

  private void count(Outcome outcome) {
    pushes.labelValues(outcome.label()).inc();
  }

  /** Adds {@code p} to its node's lane and starts the lane's sender if none runs; false if full. */
  private boolean enqueue(NodeLane lane, Pending p) {
    boolean start;
    synchronized (lane) {
      if (lane.waiting.size() >= limits.waitingPerNode()) {
        return false;
      }
      lane.waiting.add(p);
      start = !lane.sending;
      lane.sending = true;
    }
    if (start) {
      startDrain(lane);
    }
    return true;
  }

  /** Starts a sender thread on the lane; false (its waiting settled as skipped) once closed. */
  private boolean startDrain(NodeLane lane) {
    try {
      senders.execute(() -> drain(lane));
      return true;
    } catch (RejectedExecutionException e) { // closed
      settleAll(lane, Outcome.SKIPPED);
      return false;
    }
  }

  /** Sends what waits in the lane, together, until nothing does. */
  private void drain(NodeLane lane) {
    try {
      for (List<Pending> batch = next(lane); !batch.isEmpty(); batch = next(lane)) {
        Outcome o = quiet(lane.endpoint) ? Outcome.SKIPPED : send(lane, batch);
        batch.forEach(p -> p.done().complete(o));
      }
      if (closed) {
        closeConnection(lane); // close() left it to this sender, still sending then
      }
    } catch (RuntimeException | Error e) {
      settleAll(lane, Outcome.FAILED);
      throw e;
    }
  }

  /** The next sends of one view, up to a RELEASE's limit; empty (and the lane idle) if none. */
  private static List<Pending> next(NodeLane lane) {
    List<Pending> batch = new ArrayList<>();
    synchronized (lane) {
      int releases = 0;
      Pending p;
      while ((p = lane.waiting.peek()) != null
          && (batch.isEmpty()
              || (p.view() == batch.get(0).view()
                  && releases + p.releases().size() <= ProtocolLimits.MAX_BATCH))) {
        batch.add(lane.waiting.poll());
        releases += p.releases().size();
      }
      if (batch.isEmpty()) {
        lane.sending = false;
      }
    }
    return batch;
  }

  private static void settleAll(NodeLane lane, Outcome outcome) {
    synchronized (lane) {
      lane.waiting.forEach(p -> p.done().complete(outcome));
      lane.waiting.clear();
      lane.sending = false;
    }
  }

  private Outcome send(NodeLane lane, List<Pending> batch) {
    List<Release> releases = new ArrayList<>();
    batch.forEach(p -> releases.addAll(p.releases()));
    return send(
        lane, batch.get(0).view(), releases, System.nanoTime() + limits.pushTimeout().toNanos());
  }

  /**
   * One RELEASE to the node of {@code lane}, by {@code deadline}: its connection opened if need be.
   */
  private Outcome send(NodeLane lane, long view, List<Release> releases, long deadline) {
    try {
      if (lane.connection == null
          || lane.connectionView != view
          || !lane.connection.isUsable()
          || System.nanoTime() - lane.lastUsedNanos > limits.keptIdle().toNanos()) {
        closeConnection(lane);
        lane.connection =
            RpcConnection.open(
                HostPort.parse(lane.endpoint), identity, view, secrets.outbound(), left(deadline));
        lane.connectionView = view;
      }
      BodyWriter w = new BodyWriter(32 + releases.size() * 64);
      new ReleaseRequest(releases).encode(w, lane.connection.agreedMinor());
      try (RpcConnection.Deadline d = lane.connection.deadline(left(deadline))) {
        lane.connection.call(Opcode.RELEASE, w);
      }
      lane.lastUsedNanos = System.nanoTime();
      quietUntil.remove(lane.endpoint);
      return Outcome.DELIVERED;
    } catch (IOException | RuntimeException e) {
      closeConnection(lane);
      quietUntil.put(lane.endpoint, System.nanoTime() + limits.quietAfterFailure().toNanos());
      FAILURES.warn(
          "event=release_push_failed node={} releases={} error=\"{}\" (the node takes them with its next"
              + " heartbeat)",
          lane.endpoint,
          releases.size(),
          e.getMessage());
      return Outcome.FAILED;
    }
  }

  /** What is left until {@code deadline}, at least a millisecond (an expired one fails at once). */
  private static java.time.Duration left(long deadline) {
    return java.time.Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
  }

  /**
   * Closes the lane's connection, once: a REMOVE's own send ending as {@link #close} runs can reach
   * here from both threads.
   */
  private static void closeConnection(NodeLane lane) {
    RpcConnection connection;
    synchronized (lane) {
      connection = lane.connection;
      lane.connection = null;
    }
    if (connection != null) {
      connection.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    senders.shutdownNow(); // interrupts sends in flight: their channels close
    try {
      senders.awaitTermination(limits.pushTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (NodeLane lane : lanes.values()) {
      boolean inUse;
      synchronized (lane) {
        lane.waiting.forEach(p -> p.done().complete(Outcome.SKIPPED));
        lane.waiting.clear();
        inUse = lane.sending; // a REMOVE's own send, bounded by the push timeout: it closes
      }
      if (!inUse) {
        closeConnection(lane);
      }
    }
    lanes.clear();
  }
}
