package io.kvpool.bench.chaos;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the chaos soak does to the pool, one at a time. Each kind heals itself (a killed process is
 * started again, a stopped one continued, a raw connection closed) and the soak waits for the pool
 * to settle before the next, so that with two replicas no object ever has both holders down: any
 * acknowledged object lost is a defect, not bad luck.
 */
public enum FaultKind {
  /**
   * kill -9 of a storage node, started again (its memory files hold no inventory: a cold start,
   * repairs follow).
   */
  KILL_NODE("kill-node", "storage node killed with SIGKILL and started again (cold)"),
  /**
   * SIGTERM of a storage node, started again on its memory files (a warm restart, as a rolling
   * update does).
   */
  RESTART_NODE(
      "restart-node",
      "storage node stopped with SIGTERM and started again on its memory files (warm)"),
  /** SIGSTOP of a storage node for a while (past the node TTL or not), then SIGCONT. */
  STOP_NODE("stop-node", "storage node frozen with SIGSTOP, then continued"),
  /**
   * kill -9 of the serving leader, started again (as a standby once another master took the Lease).
   */
  KILL_LEADER("kill-leader", "leading master killed with SIGKILL and started again"),
  /** kill -9 of a standby master, started again. */
  KILL_STANDBY("kill-standby", "standby master killed with SIGKILL and started again"),
  /** SIGSTOP of the leader for a while (past the election lease or not), then SIGCONT. */
  STOP_LEADER("stop-leader", "leading master frozen with SIGSTOP, then continued"),
  /** SIGSTOP of a standby for a while, then SIGCONT. */
  STOP_STANDBY("stop-standby", "standby master frozen with SIGSTOP, then continued"),
  /** POST /step-down to the leader: it releases the Lease and campaigns again one lease later. */
  STEP_DOWN("step-down", "leader asked to step down"),
  /**
   * Raw connections to one server that end at every awkward point (before the handshake, inside a
   * header, inside a small or a large body, after a garbage body, by reset or by close), and a real
   * client closed in the middle of a batch put.
   */
  CUT_CONNECTIONS(
      "cut-connections", "connections cut mid-frame (raw peers and a client closed mid-batch)"),
  /**
   * Raw connections that declare 64 MiB bodies and send half of each, taking a server's whole body
   * budget, held for a while and then reset, closed or left to the frame deadline: the budget must
   * be whole again afterwards.
   */
  EXHAUST_BUDGET("exhaust-budget", "body budget taken by stalled 64 MiB bodies, then released"),
  /**
   * Puts into a separate keyspace until the pool evicts, then checks that no more of those objects
   * vanished than the leader counted as evicted, and removes them. The main keyspace is pinned
   * first, so it is never evicted.
   */
  EVICTION_BURST("eviction-burst", "pool filled past its watermark so that it evicts"),
  /**
   * A storage node drained through the leader's admin API (as a rollout or a scale-down does), and
   * once it holds nothing, stopped with SIGTERM and started again as its replacement. After a
   * leader change it also checks that a drain does not wait for late nodes.
   */
  DRAIN_NODE("drain-node", "storage node drained by the leader, then replaced (SIGTERM, start)");

  private final String cliName;
  private final String description;

  FaultKind(String cliName, String description) {
    this.cliName = cliName;
    this.description = description;
  }

  /** The name on the command line and in the log, e.g. {@code kill-node}. */
  public String cliName() {
    return cliName;
  }

  public String description() {
    return description;
  }

  /** Whether this kind acts on a master (so a failover may follow). */
  public boolean hitsMaster() {
    return this == KILL_LEADER
        || this == KILL_STANDBY
        || this == STOP_LEADER
        || this == STOP_STANDBY
        || this == STEP_DOWN;
  }

  /** The kind named {@code name} on the command line (e.g. {@code kill-node}, case-insensitive). */
  public static FaultKind parse(String name) {
    String n = name.strip().toLowerCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(k -> k.cliName.equals(n))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "unknown fault '"
                        + name
                        + "'; known: "
                        + String.join(
                            ", ", Arrays.stream(values()).map(FaultKind::cliName).toList())));
  }

  @Override
  public String toString() {
    return cliName;
  }
}
