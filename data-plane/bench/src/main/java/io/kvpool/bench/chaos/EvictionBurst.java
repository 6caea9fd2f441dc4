package io.kvpool.bench.chaos;

import io.kvpool.admin.MasterStatus;
import io.kvpool.cli.AdminApi;
import io.kvpool.client.BatchResult;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.client.ObjectNotFoundException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Eviction under the soak, kept honest: the main keyspace stays below the watermark and is pinned
 * (a pinned object is never evicted), so its objects can never be excused as evicted. A burst holds
 * the workload's gate (no puts or removes of the main keyspace meanwhile; reads go on), pins every
 * acknowledged key not yet pinned under the current leader (all of them after a leader change: pins
 * live in the leader's memory), then puts values into its own keyspace {@code evict/<step>/<n>}
 * until the leader's evictions counter moves (or, with disk tiers, objects move to them), reads
 * them all back, and checks the rule: <em>no more of its acknowledged objects vanished than the
 * leader counted as evicted</em>, and those still there are byte-exact. With disk tiers large
 * enough, nothing vanishes: a value evicted from memory is read from a tier. Then it removes them,
 * so the pool is back below the watermark before the next fault.
 */
final class EvictionBurst {
  private static final int BATCH = 8;
  private static final int MIN_EVICTIONS = 16;
  private static final int PIN_THREADS = 4;

  /** What a burst did, for the summary. */
  record Outcome(boolean ran, String line, long acknowledged, long vanished, long counted) {}

  private final ChaosPool pool;
  private final Ledger ledger;
  private final Workload workload;
  private final KeyValues values;
  private final Journal journal;
  private final int replicas;
  private final int valueSize;
  private final Duration lockTimeout;
  private long pinnedView = -1;

  EvictionBurst(
      ChaosPool pool,
      Ledger ledger,
      Workload workload,
      KeyValues values,
      Journal journal,
      int replicas,
      int valueSize,
      Duration lockTimeout) {
    this.pool = pool;
    this.ledger = ledger;
    this.workload = workload;
    this.values = values;
    this.journal = journal;
    this.replicas = replicas;
    this.valueSize = valueSize;
    this.lockTimeout = lockTimeout;
  }

  Outcome run(Fault fault, ChaosPool.Settled settled, KvPoolClient client) {
    try {
      if (!workload.gate().writeLock().tryLock(lockTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        return skipped("the load's puts did not pause within " + lockTimeout.toSeconds() + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return skipped("interrupted");
    }
    try {
      return burst(fault, settled, client);
    } finally {
      workload.gate().writeLock().unlock();
    }
  }

  private Outcome burst(Fault fault, ChaosPool.Settled settled, KvPoolClient client) {
    AdminApi leader = pool.admin(settled.leader().adminAddress());
    MasterStatus before;
    try {
      before = leader.masterStatus();
    } catch (AdminApi.AdminApiException e) {
      return skipped("the leader's status: " + e.getMessage());
    }
    String pinned = pin(client, before.view());
    if (pinned == null) {
      return skipped("pinning the main keyspace failed");
    }
    long evictions0 = before.counters().evictions();
    long onDisk0 = onDisk(before);
    long view = before.view();
    int size = Math.max(256 << 10, 4 * valueSize);
    // enough to cross the watermark from where the pool is, and a cap should the leader never evict
    long cap = before.capacityBytes() / replicas + (64L << 20);
    List<String> acknowledged = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    long bytes = 0;
    int n = 0;
    int failedBatches = 0;
    String stop = "bytes cap reached";
    MasterStatus now = before;
    while (bytes < cap) {
      Map<String, ByteBuffer> batch = new LinkedHashMap<>();
      for (int i = 0; i < BATCH; i++) {
        String key = "evict/" + fault.step() + "/" + n++;
        batch.put(key, values.value(key, size));
      }
      try {
        BatchResult r = client.putBatch(batch, replicas);
        acknowledged.addAll(r.stored());
        acknowledged.addAll(r.alreadyPresent());
        failed.addAll(r.failures().keySet());
        failedBatches = r.allSucceeded() ? 0 : failedBatches + 1;
      } catch (KvPoolException e) {
        failed.addAll(batch.keySet());
        failedBatches++;
      }
      bytes += (long) BATCH * size;
      if (failedBatches >= 3) {
        stop = "three batches in a row failed";
        break;
      }
      try {
        now = leader.masterStatus();
      } catch (AdminApi.AdminApiException e) {
        stop = "the leader stopped answering";
        break;
      }
      if (now.view() != view || !now.leading()) {
        stop = "leadership moved";
        break;
      }
      long moved = onDisk(now) - onDisk0;
      if (now.counters().evictions() - evictions0 + Math.max(0, moved) >= MIN_EVICTIONS) {
        stop = moved > 0 ? "evicting to the disk tiers" : "evicting";
        break;
      }
    }
    long counted = now.view() == view ? now.counters().evictions() - evictions0 : -1;
    long movedToDisk = Math.max(0, onDisk(now) - onDisk0);
    // read everything back: acknowledged ones present must be whole; failed ones absent or whole
    List<String> all = new ArrayList<>(acknowledged);
    all.addAll(failed);
    Map<String, ByteBuffer> read = readBack(client, all);
    int vanished = 0;
    int wrong = 0;
    for (String key : acknowledged) {
      if (!read.containsKey(key)) {
        vanished++;
      }
    }
    for (Map.Entry<String, ByteBuffer> e : read.entrySet()) {
      if (!values.matches(e.getKey(), size, e.getValue())) {
        wrong++;
        journal.violation(
            "wrong bytes", "eviction keyspace: " + e.getKey() + " read back with other bytes");
      }
    }
    List<String> present = new ArrayList<>(read.keySet());
    if (counted >= 0 && vanished > counted) {
      journal.violation(
          "evictions not counted",
          vanished
              + " of "
              + acknowledged.size()
              + " acknowledged objects of "
              + "the eviction keyspace vanished but the leader counted "
              + counted
              + " evictions");
    }
    int removed = removeAll(client, present);
    String line =
        String.format(
            java.util.Locale.ROOT,
            "%s; put %d x %d KiB (%s): %d acknowledged, %d vanished, "
                + "%d evictions counted%s, %d more objects on disk, %d wrong; %d removed after",
            pinned,
            acknowledged.size() + failed.size(),
            size >> 10,
            stop,
            acknowledged.size(),
            vanished,
            Math.max(0, counted),
            counted < 0 ? " (leadership moved: not accounted)" : "",
            movedToDisk,
            wrong,
            removed);
    return new Outcome(true, line, acknowledged.size(), vanished, Math.max(0, counted));
  }

  /**
   * The objects the leader holds only on storage nodes' disk tiers (its {@code disk} tier), 0
   * without tiers.
   */
  private static long onDisk(MasterStatus s) {
    if (s.cacheSignals() == null) {
      return 0;
    }
    return s.cacheSignals().tiers().stream()
        .filter(t -> !MasterStatus.Tier.MEMORY.equals(t.name()))
        .mapToLong(MasterStatus.Tier::objects)
        .sum();
  }

  /**
   * The values of those {@code keys} that are stored, in batches; asks again on errors that are not
   * an answer.
   */
  private static Map<String, ByteBuffer> readBack(KvPoolClient client, List<String> keys) {
    Map<String, ByteBuffer> out = new LinkedHashMap<>();
    for (int from = 0; from < keys.size(); from += 32) {
      List<String> chunk = keys.subList(from, Math.min(keys.size(), from + 32));
      for (int attempt = 0; ; attempt++) {
        try {
          out.putAll(client.getBatch(chunk));
          break;
        } catch (KvPoolException e) {
          if (attempt >= 3) {
            throw e;
          }
        }
      }
    }
    return out;
  }

  /**
   * Removes the burst's objects, asking again while a read lease (of the read-back) still holds
   * one.
   */
  private static int removeAll(KvPoolClient client, List<String> keys) {
    int removed = 0;
    for (String key : keys) {
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (true) {
        try {
          removed += client.remove(key) ? 1 : 0;
          break;
        } catch (KvPoolException e) {
          if (System.nanoTime() - deadline > 0) {
            break;
          }
          Pause.millis(200); // the read lease of the read-back runs out within the lease TTL
        }
      }
    }
    return removed;
  }

  /**
   * Pins what needs it: every acknowledged key after a leader change, else the keys acknowledged
   * since the last burst. Returns a phrase for the log, or null when a pin failed for another
   * reason than "not stored".
   */
  private String pin(KvPoolClient client, long view) {
    List<String> keys;
    boolean all = view != pinnedView;
    if (all) {
      keys = ledger.keys(Ledger.State.ACKNOWLEDGED);
    } else {
      keys = new ArrayList<>(workload.unpinned());
    }
    AtomicInteger notStored = new AtomicInteger();
    AtomicReference<String> error = new AtomicReference<>();
    ExecutorService threads =
        Executors.newFixedThreadPool(
            PIN_THREADS,
            r -> {
              Thread t = new Thread(r, "chaos-pin");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < PIN_THREADS; t++) {
        int first = t;
        done.add(
            threads.submit(
                () -> {
                  for (int i = first; i < keys.size() && error.get() == null; i += PIN_THREADS) {
                    String key = keys.get(i);
                    try {
                      client.pin(key, true);
                    } catch (ObjectNotFoundException e) {
                      notStored.incrementAndGet();
                      if (ledger.firstMissing(key)) {
                        journal.violation(
                            "acknowledged object missing during the run",
                            key + ": pin answered that it is " + "not stored");
                      }
                    } catch (KvPoolException e) {
                      error.compareAndSet(null, key + ": " + e.getMessage());
                    }
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } catch (Exception e) {
      error.compareAndSet(null, String.valueOf(e));
    } finally {
      threads.shutdownNow();
    }
    if (error.get() != null) {
      journal.log("eviction burst: pinning failed at " + error.get());
      return null;
    }
    keys.forEach(workload.unpinned()::remove);
    pinnedView = view;
    return "pinned "
        + keys.size()
        + (all ? " (every acknowledged key: view " + view + ")" : " new keys")
        + (notStored.get() > 0 ? ", " + notStored.get() + " not stored" : "");
  }

  private static Outcome skipped(String why) {
    return new Outcome(false, "skipped: " + why, 0, 0, 0);
  }
}
