package io.kvpool.bench.chaos;

import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.ObjectScan;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.PoolProcess;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.common.HostPort;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The soak's view of its {@link LocalPool}: which master leads, which process a {@link Target}
 * names now, whether the pool has settled, and the admin API of every process (asked with a short
 * timeout, since a process may be frozen).
 */
public final class ChaosPool {
  /** A frozen process must not hold a poll up for long: every admin call gives up after this. */
  static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(3);

  private static final long POLL_MILLIS = 200;

  /**
   * A pool process as the soak samples it: role name ({@code master-0}, {@code node-1}), pid, admin
   * endpoint.
   */
  public record Proc(String name, PoolProcess process, String adminAddress) {}

  /** The pool settled: its leader, the leader's status then, and how long settling took. */
  public record Settled(LocalPool.MasterProcess leader, MasterStatus status, Duration took) {}

  /** The pool did not settle in time; the message says what was still missing. */
  public static final class NotSettledException extends RuntimeException {
    NotSettledException(String message) {
      super(message);
    }
  }

  /**
   * A pool process exited though no fault was under way: a finding; the soak restarts it and goes
   * on.
   */
  public static final class ProcessDiedException extends RuntimeException {
    private final Proc proc;

    ProcessDiedException(Proc proc) {
      super(
          proc.name()
              + " (pid "
              + proc.process().pid()
              + ") exited with code "
              + proc.process().exitCode().orElse(-1)
              + "; its log ends: "
              + lastLine(proc.process()));
      this.proc = proc;
    }

    public Proc proc() {
      return proc;
    }

    private static String lastLine(PoolProcess p) {
      List<String> lines = p.logTail(3).lines().filter(l -> !l.isBlank()).toList();
      return lines.isEmpty() ? "(empty)" : lines.get(lines.size() - 1).strip();
    }
  }

  private final LocalPool pool;
  private final int storageNodes;
  private final Map<String, AdminApi> admins = new ConcurrentHashMap<>();

  /**
   * The leader answered 404 to {@code GET /scan}: a release without it; settling trusts the gauges
   * alone.
   */
  private volatile boolean noScan;

  public ChaosPool(LocalPool pool, int storageNodes) {
    this.pool = pool;
    this.storageNodes = storageNodes;
  }

  public LocalPool pool() {
    return pool;
  }

  public AdminApi admin(String endpoint) {
    return admins.computeIfAbsent(endpoint, e -> new AdminApi(HostPort.parse(e), ADMIN_TIMEOUT));
  }

  /** A master's status, or empty when it does not answer (killed, frozen, starting). */
  public Optional<MasterStatus> status(LocalPool.MasterProcess m) {
    if (m.process() == null || !m.process().isAlive()) {
      return Optional.empty();
    }
    try {
      return Optional.of(admin(m.adminAddress()).masterStatus());
    } catch (AdminApi.AdminApiException e) {
      return Optional.empty();
    }
  }

  /** The master that leads and serves now, if one does. */
  public Optional<LocalPool.MasterProcess> leader() {
    for (LocalPool.MasterProcess m : pool.masters()) {
      Optional<MasterStatus> s = status(m);
      if (s.isPresent() && s.get().leading() && "SERVING".equals(s.get().state())) {
        return Optional.of(m);
      }
    }
    return Optional.empty();
  }

  /**
   * Waits until the pool is settled: exactly one master leads and serves, every master process runs
   * and answers, the leader counts every storage node ALIVE and nothing under-replicated, and every
   * storage node answers its {@code /health}. Only then may the next fault come, so that no object
   * ever has both of its holders down.
   */
  public Settled awaitSettled(Duration timeout) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    String last = "nothing asked yet";
    while (true) {
      for (Proc p : processes()) {
        if (!p.process().isAlive()) {
          throw new ProcessDiedException(p);
        }
      }
      List<String> missing = new ArrayList<>();
      LocalPool.MasterProcess leader = null;
      MasterStatus leaderStatus = null;
      int leading = 0;
      for (LocalPool.MasterProcess m : pool.masters()) {
        Optional<MasterStatus> s = status(m);
        if (s.isEmpty()) {
          missing.add("master-" + m.index() + " does not answer");
        } else if (s.get().leading()) {
          leading++;
          leader = m;
          leaderStatus = s.get();
        }
      }
      if (leading != 1) {
        missing.add(leading + " masters say they lead");
      } else if (!"SERVING".equals(leaderStatus.state())) {
        missing.add("leader master-" + leader.index() + " is " + leaderStatus.state());
      } else {
        if (leaderStatus.aliveNodes() != storageNodes) {
          List<String> notAlive = new ArrayList<>();
          for (StorageNodeProcess n : pool.storageNodes()) {
            String state =
                leaderStatus.nodes().stream()
                    .filter(s -> s.id().equals(n.id()))
                    .findFirst()
                    .map(MasterStatus.NodeStatus::state)
                    .orElse("not registered");
            if (!"ALIVE".equals(state)) {
              notAlive.add(n.id() + " " + state);
            }
          }
          missing.add(
              leaderStatus.aliveNodes()
                  + " of "
                  + storageNodes
                  + " storage nodes ALIVE ("
                  + String.join(", ", notAlive)
                  + ")");
        }
        long under =
            leaderStatus.counters() == null ? -1 : leaderStatus.counters().underReplicated();
        if (under != 0) {
          missing.add(under + " objects under-replicated");
        } else if (missing.isEmpty()) {
          scanUnderReplicated(leader)
              .ifPresent(
                  n ->
                      missing.add(
                          n < 0
                              ? "GET /scan did not answer"
                              : "the gauge says nothing is under-replicated but a full scan finds "
                                  + n
                                  + " objects"));
        }
      }
      for (StorageNodeProcess n : pool.storageNodes()) {
        if (!n.process().isAlive()) {
          missing.add(n.id() + " exited");
        } else if (!answers(n.adminAddress())) {
          missing.add(n.id() + " does not answer /health");
        }
      }
      if (missing.isEmpty()) {
        return new Settled(leader, leaderStatus, Duration.ofNanos(System.nanoTime() - start));
      }
      last = String.join(", ", missing);
      if (System.nanoTime() - deadline > 0) {
        throw new NotSettledException(
            "the pool did not settle within " + timeout.toSeconds() + " s: " + last);
      }
      Pause.millis(
          POLL_MILLIS); // polling processes' admin APIs: there is no event to wait on across them
    }
  }

  /**
   * Under-replicated objects by a full scan, when the leader has {@code GET /scan} and finds any:
   * the gauge alone may be wrong, and the next fault must not take the last replica of an object
   * the gauge forgot.
   */
  private Optional<Long> scanUnderReplicated(LocalPool.MasterProcess leader) {
    if (noScan) {
      return Optional.empty();
    }
    try {
      Optional<ObjectScan> scan = admin(leader.adminAddress()).scan();
      if (scan.isEmpty()) {
        noScan = true;
        return Optional.empty();
      }
      return scan.get().underReplicated() == 0
          ? Optional.empty()
          : Optional.of(scan.get().underReplicated());
    } catch (AdminApi.AdminApiException e) {
      return Optional.of(-1L); // no answer now: not settled yet
    }
  }

  private boolean answers(String adminAddress) {
    try {
      return admin(adminAddress).statusCode("/health") == 200;
    } catch (AdminApi.AdminApiException e) {
      return false;
    }
  }

  /** The master a LEADER or STANDBY target names, given the current leader. */
  public LocalPool.MasterProcess master(Target target, LocalPool.MasterProcess leader) {
    if (target.role() == Target.Role.LEADER) {
      return leader;
    }
    List<LocalPool.MasterProcess> standbys =
        pool.masters().stream().filter(m -> m.index() != leader.index()).toList();
    return standbys.get(target.index() % standbys.size());
  }

  /**
   * Starts a process that died again, on its ports (a master) or with its node id (a storage node).
   */
  public void restart(Proc proc) {
    if (proc.name().startsWith("master-")) {
      pool.restartMaster(Integer.parseInt(proc.name().substring("master-".length())));
    } else {
      pool.startStorageNode(proc.name());
    }
  }

  public StorageNodeProcess node(Target target) {
    return pool.storageNode(target.nodeId());
  }

  /** Every process of the pool now, masters first. */
  public List<Proc> processes() {
    List<Proc> out = new ArrayList<>();
    for (LocalPool.MasterProcess m : pool.masters()) {
      if (m.process() != null) {
        out.add(new Proc("master-" + m.index(), m.process(), m.adminAddress()));
      }
    }
    for (StorageNodeProcess n : pool.storageNodes()) {
      out.add(new Proc(n.id(), n.process(), n.adminAddress()));
    }
    return out;
  }
}
