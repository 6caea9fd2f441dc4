package io.kvpool.bench.chaos;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.StorageStatus;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.PoolProcess;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * Does one {@link Fault} to the pool and heals it: a killed process is started again, a frozen one
 * continued, raw connections ended. Returns a line for the log of what was done to which process
 * (pid); the caller then waits for the pool to settle.
 */
final class FaultInjector {
  /** What the injector needs besides the pool. */
  record Context(
      ChaosPool pool,
      Ledger ledger,
      KeyValues values,
      Workload workload,
      BudgetTracker budgets,
      EvictionBurst evictions,
      Supplier<KvPoolClient> clients,
      KvPoolClient burstClient,
      int replicas,
      Duration nodeTtl,
      Duration frameTimeout) {}

  private final Context c;

  FaultInjector(Context context) {
    this.c = context;
  }

  /** The fault's outcome for the log; an eviction burst's outcome is kept for the summary too. */
  record Done(String line, EvictionBurst.Outcome burst) {}

  Done inject(Fault f, ChaosPool.Settled settled) {
    LocalPool.MasterProcess leader = settled.leader();
    SplittableRandom variant = new SplittableRandom(f.variant());
    return switch (f.kind()) {
      case KILL_NODE ->
          new Done(killNode(c.pool().node(f.target()), variant.nextBoolean(), leader), null);
      case RESTART_NODE -> new Done(restartNode(c.pool().node(f.target())), null);
      case DRAIN_NODE -> new Done(drainNode(c.pool().node(f.target()), leader), null);
      case STOP_NODE -> {
        StorageNodeProcess n = c.pool().node(f.target());
        yield new Done(freeze(n.id(), n.process(), f.hold()), null);
      }
      case KILL_LEADER, KILL_STANDBY ->
          new Done(killMaster(c.pool().master(f.target(), leader), variant.nextBoolean()), null);
      case STOP_LEADER, STOP_STANDBY -> {
        LocalPool.MasterProcess m = c.pool().master(f.target(), leader);
        yield new Done(freeze("master-" + m.index(), m.process(), f.hold()), null);
      }
      case STEP_DOWN -> new Done(stepDown(leader), null);
      case CUT_CONNECTIONS ->
          new Done(
              ConnectionFaults.cut(
                  f,
                  endpoint(f.target(), leader),
                  f.target().role() != Target.Role.NODE,
                  c.clients(),
                  c.ledger(),
                  c.values(),
                  c.workload().unpinned(),
                  c.replicas()),
              null);
      case EXHAUST_BUDGET -> new Done(exhaust(f, leader), null);
      case EVICTION_BURST -> {
        EvictionBurst.Outcome o = c.evictions().run(f, settled, c.burstClient());
        yield new Done("eviction burst: " + o.line(), o);
      }
    };
  }

  private HostPort endpoint(Target t, LocalPool.MasterProcess leader) {
    return HostPort.parse(
        t.role() == Target.Role.NODE
            ? c.pool().node(t).rpcAddress()
            : c.pool().master(t, leader).rpcAddress());
  }

  private String processName(Target t, LocalPool.MasterProcess leader) {
    return t.role() == Target.Role.NODE
        ? t.nodeId()
        : "master-" + c.pool().master(t, leader).index();
  }

  /**
   * kill -9, then a start at once or only once the leader declared the node dead (a node TTL
   * later).
   */
  private String killNode(
      StorageNodeProcess node, boolean waitForDeath, LocalPool.MasterProcess leader) {
    long pid = node.process().pid();
    node.process().kill();
    long t0 = System.nanoTime();
    String when = "at once";
    if (waitForDeath) {
      long deadline = t0 + c.nodeTtl().multipliedBy(4).toNanos();
      while (System.nanoTime() - deadline < 0 && aliveAtLeader(node.id())) {
        Pause.millis(200); // polling the leader's view of the node
      }
      when =
          aliveAtLeader(node.id())
              ? "after " + seconds(t0) + " (the leader still counted it ALIVE)"
              : "once the leader declared it dead (" + seconds(t0) + ")";
    }
    StorageNodeProcess again = c.pool().pool().startStorageNode(node.id());
    return "kill -9 "
        + node.id()
        + " (pid "
        + pid
        + "); started again "
        + when
        + " as pid "
        + again.process().pid()
        + warmStart(again);
  }

  private boolean aliveAtLeader(String nodeId) {
    Optional<LocalPool.MasterProcess> leader = c.pool().leader();
    if (leader.isEmpty()) {
      return true;
    }
    Optional<MasterStatus> s = c.pool().status(leader.get());
    return s.isEmpty()
        || s.get().nodes().stream()
            .anyMatch(n -> n.id().equals(nodeId) && "ALIVE".equals(n.state()));
  }

  /**
   * SIGTERM (the node writes its inventory next to its memory files), then a start on the same
   * files.
   */
  private String restartNode(StorageNodeProcess node) {
    long pid = node.process().pid();
    node.process().stop();
    String exit = node.process().exitCode().map(code -> "exit " + code).orElse("still running");
    StorageNodeProcess again = c.pool().pool().startStorageNode(node.id());
    return "SIGTERM "
        + node.id()
        + " (pid "
        + pid
        + ", "
        + exit
        + "); started again on its memory files as pid "
        + again.process().pid()
        + warmStart(again);
  }

  /**
   * POST /nodes/{id}/drain to the leader; once the leader counts no replica on the node (at most
   * two minutes), SIGTERM and a start, as the operator replaces a drained pod. A refused drain (the
   * other nodes lack room, say) is logged and leaves the node as it was.
   */
  private String drainNode(StorageNodeProcess node, LocalPool.MasterProcess leader) {
    String answer =
        c.pool().admin(leader.adminAddress()).postForAnswer("/nodes/" + node.id() + "/drain");
    if (!answer.startsWith("HTTP 200")) {
      return "drain of " + node.id() + " refused by master-" + leader.index() + ": " + answer;
    }
    long t0 = System.nanoTime();
    long deadline = t0 + Duration.ofSeconds(120).toNanos();
    long left = replicasAtLeader(node.id());
    long atStart = left;
    while (left != 0 && System.nanoTime() - deadline < 0) {
      Pause.millis(200); // polling the leader's count of the node's replicas
      left = replicasAtLeader(node.id());
    }
    String drained =
        left == 0
            ? "drained in " + seconds(t0)
            : "not drained after " + seconds(t0) + " (" + left + " replicas left)";
    long pid = node.process().pid();
    node.process().stop();
    StorageNodeProcess again = c.pool().pool().startStorageNode(node.id());
    return "drain of "
        + node.id()
        + " (pid "
        + pid
        + ", "
        + atStart
        + " replicas) by master-"
        + leader.index()
        + ": "
        + drained
        + "; SIGTERM, started again as pid "
        + again.process().pid();
  }

  /** The replicas the leader counts on the node now; -1 when it cannot tell. */
  private long replicasAtLeader(String nodeId) {
    Optional<LocalPool.MasterProcess> leader = c.pool().leader();
    Optional<MasterStatus> s = leader.flatMap(l -> c.pool().status(l));
    return s.flatMap(
            status ->
                status.nodes().stream()
                    .filter(n -> n.id().equals(nodeId))
                    .map(MasterStatus.NodeStatus::replicas)
                    .findFirst())
        .orElse(-1L);
  }

  /**
   * What the node's {@code /status} says of its start, e.g. {@code ; warm start: 1234 replicas
   * adopted}.
   */
  private String warmStart(StorageNodeProcess node) {
    try {
      StorageStatus s =
          AdminJson.read(c.pool().admin(node.adminAddress()).text("/status"), StorageStatus.class);
      StorageStatus.WarmStart w = s.warmStart();
      if (w == null) {
        return "";
      }
      return w.taken()
          ? "; warm start: " + w.objects() + " replicas adopted, " + w.refused() + " refused"
          : "; " + w.message();
    } catch (AdminApi.AdminApiException | IOException e) {
      return "; start status unknown (" + e.getMessage() + ")";
    }
  }

  /** kill -9 of a master, then a start at once or only once another master leads. */
  private String killMaster(LocalPool.MasterProcess m, boolean waitForNewLeader) {
    long pid = m.process().pid();
    m.process().kill();
    long t0 = System.nanoTime();
    String when = "at once";
    if (waitForNewLeader) {
      long deadline = t0 + Duration.ofSeconds(120).toNanos();
      Optional<LocalPool.MasterProcess> now = c.pool().leader();
      while (System.nanoTime() - deadline < 0
          && (now.isEmpty() || now.get().index() == m.index())) {
        Pause.millis(200); // polling the masters for the new leader
        now = c.pool().leader();
      }
      when =
          now.isPresent()
              ? "once master-" + now.get().index() + " led (" + seconds(t0) + ")"
              : "after " + seconds(t0) + " without a new leader";
    }
    c.pool().pool().restartMaster(m.index());
    return "kill -9 master-"
        + m.index()
        + " (pid "
        + pid
        + "); started again "
        + when
        + " as pid "
        + m.process().pid();
  }

  /** SIGSTOP for the fault's time, then SIGCONT (also when the soak is interrupted meanwhile). */
  private static String freeze(String name, PoolProcess process, Duration hold) {
    process.suspend();
    try {
      Pause.millis(hold.toMillis()); // the fault itself: how long the process stays frozen
    } finally {
      process.resume();
    }
    return "SIGSTOP "
        + name
        + " (pid "
        + process.pid()
        + ") for "
        + seconds(hold)
        + ", then SIGCONT";
  }

  private String stepDown(LocalPool.MasterProcess leader) {
    int code;
    try {
      code = c.pool().admin(leader.adminAddress()).post("/step-down");
    } catch (AdminApi.AdminApiException e) {
      return "POST /step-down to master-" + leader.index() + " failed: " + e.getMessage();
    }
    return "POST /step-down to master-"
        + leader.index()
        + " (pid "
        + leader.process().pid()
        + "): HTTP "
        + code;
  }

  /**
   * Takes the target's whole body budget with stalled bodies, holds it for the fault's time,
   * releases it.
   */
  private String exhaust(Fault f, LocalPool.MasterProcess leader) {
    String name = processName(f.target(), leader);
    HostPort endpoint = endpoint(f.target(), leader);
    BudgetTracker.Reading r = c.budgets().readings().get(name);
    long whole = r == null ? 256L << 20 : r.whole();
    ConnectionFaults.Held held =
        ConnectionFaults.takeBudget(endpoint, f.target().role() != Target.Role.NODE, whole);
    String left = budgetNow(f.target(), leader);
    try {
      Pause.millis(f.hold().toMillis()); // the fault itself: how long the budget stays taken
    } catch (RuntimeException e) {
      ConnectionFaults.release(held, f, c.frameTimeout());
      throw e;
    }
    String how = ConnectionFaults.release(held, f, c.frameTimeout());
    return String.format(
        Locale.ROOT,
        "%d connections to %s (%s) sent %d MiB of 64 MiB bodies; budget left %s; "
            + "held %s, then: %s",
        held.peers().size(),
        name,
        endpoint,
        held.bytesSent() >> 20,
        left,
        seconds(f.hold()),
        how);
  }

  private String budgetNow(Target t, LocalPool.MasterProcess leader) {
    String admin =
        t.role() == Target.Role.NODE
            ? c.pool().node(t).adminAddress()
            : c.pool().master(t, leader).adminAddress();
    try {
      return BudgetTracker.available(c.pool().admin(admin).text("/metrics")).stream()
          .mapToObj(v -> (v >> 20) + " MiB")
          .findFirst()
          .orElse("unknown (no gauge)");
    } catch (AdminApi.AdminApiException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  static String seconds(long sinceNanos) {
    return seconds(Duration.ofNanos(System.nanoTime() - sinceNanos));
  }

  static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
