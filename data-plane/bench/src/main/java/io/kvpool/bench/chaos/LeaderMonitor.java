package io.kvpool.bench.chaos;

import io.kvpool.admin.MasterStatus;
import io.kvpool.cli.LocalPool;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * Watches the leader's counters through the run, every second or two: leadership changes (and
 * whether a master fault caused them), and the evictions and objects-lost counters, which live in a
 * master's memory and count from its process's start: their growth is summed per master process
 * while it leads. Evictions while no eviction burst runs are counted apart: the main keyspace is
 * sized to need none.
 */
final class LeaderMonitor implements AutoCloseable {
  private static final long PERIOD_MILLIS = 1500;

  private final ChaosPool pool;
  private final Journal journal;
  private final BooleanSupplier burstRunning;
  private final BooleanSupplier masterFaultRunning;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;
  private String incarnation;

  /**
   * The counters last seen per master process (pid): they count from the process's start, across
   * its views.
   */
  private final Map<Long, long[]> seen = new HashMap<>();

  private boolean inBurst;
  private long evictionsTotal;
  private long evictionsOutsideBursts;
  private long lostTotal;
  private int changes;
  private int unplannedChanges;

  LeaderMonitor(
      ChaosPool pool,
      Journal journal,
      BooleanSupplier burstRunning,
      BooleanSupplier masterFaultRunning) {
    this.pool = pool;
    this.journal = journal;
    this.burstRunning = burstRunning;
    this.masterFaultRunning = masterFaultRunning;
    this.thread = new Thread(this::run, "chaos-leader-monitor");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  private void run() {
    while (!stop.get()) {
      sample();
      try {
        // the monitor's period: counters are polled, there is no event to wait on
        Thread.sleep(PERIOD_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /**
   * One look at the leader; also called by the soak at moments that matter (before and after each
   * step).
   */
  synchronized void sample() {
    boolean burst = burstRunning.getAsBoolean();
    for (LocalPool.MasterProcess m : pool.pool().masters()) {
      Optional<MasterStatus> s = pool.status(m);
      if (s.isEmpty() || !s.get().leading() || s.get().counters() == null) {
        continue;
      }
      long pid = m.process().pid();
      String id = "master-" + m.index() + " pid " + pid + " view " + s.get().view();
      long e = s.get().counters().evictions();
      long l = s.get().counters().objectsLost();
      if (!id.equals(incarnation)) {
        if (incarnation != null) {
          changes++;
          boolean planned = masterFaultRunning.getAsBoolean();
          unplannedChanges += planned ? 0 : 1;
          journal.log("leader now " + id + (planned ? "" : " (no master fault under way)"));
        }
        incarnation = id;
        inBurst = burst;
      }
      // counted while it led; a standby's counters (a stale leader's, say) are seen when it leads
      // again
      long[] last = seen.computeIfAbsent(pid, p -> new long[2]);
      if (e > last[0]) {
        evictionsTotal += e - last[0];
        if (!burst && !inBurst) {
          evictionsOutsideBursts += e - last[0];
          journal.log(
              "the leader evicted " + (e - last[0]) + " objects while no eviction burst ran");
        }
        last[0] = e;
      }
      if (l > last[1]) {
        journal.log(
            "the leader counts " + (l - last[1]) + " more objects lost (objectsLost " + l + ")");
        lostTotal += l - last[1];
        last[1] = l;
      }
      inBurst = burst;
      return;
    }
  }

  synchronized long evictions() {
    return evictionsTotal;
  }

  synchronized long evictionsOutsideBursts() {
    return evictionsOutsideBursts;
  }

  synchronized long objectsLost() {
    return lostTotal;
  }

  synchronized int leaderChanges() {
    return changes;
  }

  synchronized int unplannedLeaderChanges() {
    return unplannedChanges;
  }

  @Override
  public void close() {
    stop.set(true);
    thread.interrupt();
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
