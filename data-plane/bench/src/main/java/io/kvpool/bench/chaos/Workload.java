package io.kvpool.bench.chaos;

import io.kvpool.client.BatchResult;
import io.kvpool.client.ChecksumMismatchException;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.client.ObjectNotFoundException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The soak's steady mixed load on the main keyspace: worker threads, each with its own client and
 * its own keys ({@code chaos/w<worker>/<n>}, never reused), paced to a total rate, doing puts,
 * batch puts, gets, batch gets and removes. The live set hovers around a target size: below it puts
 * win, above it removes do. Every outcome goes to the {@link Ledger}; a read of an acknowledged key
 * that comes back missing, refused for its checksum or with other bytes is a violation at once.
 * Mutating operations hold the read side of {@link #gate()}, which an eviction burst takes
 * exclusively: while it runs the workers only read.
 */
public final class Workload {

  /** Operations by kind. */
  public enum Op {
    PUT,
    PUT_BATCH,
    GET,
    GET_BATCH,
    REMOVE
  }

  /**
   * Load shape: threads, total operations per second, mean value size, replicas, live keys aimed
   * at, batch size.
   */
  public record Settings(
      int workers,
      double opsPerSecond,
      int valueSize,
      int replicas,
      int targetObjects,
      int maxBatch) {}

  /** Calls that succeeded and failed, and keys written and read, per kind. */
  public record Counts(Map<Op, Long> ok, Map<Op, Long> failed, long keysPut, long keysRead) {}

  /**
   * The pool's read lease (5 s) and a margin: a key read more recently is not removed (it would be
   * refused).
   */
  private static final long LEASE_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(7);

  /** Failed calls logged one by one as they happen; the rest are counted. */
  private static final int FAILURES_LOGGED = 50;

  private final Settings settings;
  private final Ledger ledger;
  private final KeyValues values;
  private final Journal journal;
  private final long seed;
  private final ReentrantReadWriteLock gate = new ReentrantReadWriteLock(true);
  private final Set<String> unpinned = ConcurrentHashMap.newKeySet();
  private final Map<Op, LongAdder> ok = new EnumMap<>(Op.class);
  private final Map<Op, LongAdder> failed = new EnumMap<>(Op.class);
  private final Map<Op, String> lastError = new ConcurrentHashMap<>();
  private final AtomicLong failedCalls = new AtomicLong();
  private final LongAdder keysPut = new LongAdder();
  private final LongAdder keysRead = new LongAdder();
  private final AtomicLong live = new AtomicLong();
  private final List<Worker> workers = new ArrayList<>();
  private volatile boolean stopping;

  public Workload(Settings settings, Ledger ledger, KeyValues values, Journal journal, long seed) {
    this.settings = settings;
    this.ledger = ledger;
    this.values = values;
    this.journal = journal;
    this.seed = seed;
    for (Op op : Op.values()) {
      ok.put(op, new LongAdder());
      failed.put(op, new LongAdder());
    }
  }

  /** Connects one client per worker and starts them. */
  public void start(ClientConfig.Builder clients) {
    for (int i = 0; i < settings.workers(); i++) {
      KvPoolClient client = KvPoolClient.connect(clients.clientId("chaos-load-" + i).build());
      Worker w = new Worker(i, client, new SplittableRandom(seed + 0x9E3779B97F4A7C15L * (i + 1)));
      workers.add(w);
      w.thread.start();
    }
  }

  /**
   * Stops the workers (each finishes the call it is in, which its client bounds by the operation
   * timeout) and closes their clients; false if a worker did not end within {@code timeout}.
   */
  public boolean stop(Duration timeout) {
    if (stopping) {
      return workers.stream().noneMatch(w -> w.thread.isAlive());
    }
    stopping = true;
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean all = true;
    for (Worker w : workers) {
      try {
        w.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      all &= !w.thread.isAlive();
    }
    workers.forEach(w -> w.client.close());
    return all;
  }

  /**
   * Mutations hold its read lock; an eviction burst holds its write lock so that the workers only
   * read meanwhile.
   */
  public ReentrantReadWriteLock gate() {
    return gate;
  }

  /** Acknowledged keys not pinned yet (drained by the eviction burst that pins them). */
  public Set<String> unpinned() {
    return unpinned;
  }

  public long liveObjects() {
    return live.get();
  }

  public Counts counts() {
    Map<Op, Long> o = new LinkedHashMap<>();
    Map<Op, Long> f = new LinkedHashMap<>();
    for (Op op : Op.values()) {
      o.put(op, ok.get(op).sum());
      f.put(op, failed.get(op).sum());
    }
    return new Counts(o, f, keysPut.sum(), keysRead.sum());
  }

  /** The last error of each kind of call, for the summary. */
  public Map<Op, String> lastErrors() {
    // EnumMap's copy constructor refuses an empty map that is not an EnumMap: a run without errors
    Map<Op, String> out = new EnumMap<>(Op.class);
    out.putAll(lastError);
    return out;
  }

  private final class Worker implements Runnable {
    final int index;
    final KvPoolClient client;
    final SplittableRandom random;
    final Thread thread;

    /** This worker's acknowledged keys that are not removed: what it reads and removes. */
    final List<String> mine = new ArrayList<>();

    /**
     * When this worker last read a key: a read leases it, and a remove within the lease is refused.
     */
    final Map<String, Long> readAt = new java.util.HashMap<>();

    long nextKey;

    Worker(int index, KvPoolClient client, SplittableRandom random) {
      this.index = index;
      this.client = client;
      this.random = random;
      this.thread = new Thread(this, "chaos-load-" + index);
      thread.setDaemon(true);
    }

    @Override
    public void run() {
      long interval = (long) (1e9 * settings.workers() / settings.opsPerSecond());
      long next =
          System.nanoTime() + random.nextLong(interval + 1); // workers out of step with each other
      while (!stopping) {
        long now = System.nanoTime();
        if (next - now > 0) {
          try {
            TimeUnit.NANOSECONDS.sleep(next - now); // pacing the load, not waiting for a condition
          } catch (InterruptedException e) {
            return;
          }
        }
        // after a stall (a failover) carry on at the rate, without a burst to catch up
        next = Math.max(next, System.nanoTime() - interval) + interval;
        Op op = choose();
        boolean mutation = op == Op.PUT || op == Op.PUT_BATCH || op == Op.REMOVE;
        if (mutation && !tryGate()) {
          op = Op.GET_BATCH; // an eviction burst holds the gate: read meanwhile
          mutation = false;
          if (mine.isEmpty()) {
            continue;
          }
        }
        try {
          run(op);
        } catch (RuntimeException e) {
          failure(op, String.valueOf(e));
        } finally {
          if (mutation) {
            gate.readLock().unlock();
          }
        }
      }
    }

    /**
     * The gate's read lock if no eviction burst holds or waits for it: {@code tryLock(0, ...)},
     * unlike {@code tryLock()}, keeps the fair order, so a burst waiting for the gate is not
     * starved by the workers.
     */
    private boolean tryGate() {
      try {
        return gate.readLock().tryLock(0, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }

    private Op choose() {
      int target = Math.max(1, settings.targetObjects() / settings.workers());
      if (mine.isEmpty()) {
        return random.nextInt(3) == 0 ? Op.PUT_BATCH : Op.PUT;
      }
      int r = random.nextInt(100);
      Op op =
          r < 25
              ? Op.PUT
              : r < 40 ? Op.PUT_BATCH : r < 65 ? Op.GET : r < 85 ? Op.GET_BATCH : Op.REMOVE;
      if (op == Op.REMOVE && mine.size() < target) {
        return Op.PUT;
      }
      if ((op == Op.PUT || op == Op.PUT_BATCH) && mine.size() > target + target / 10) {
        return Op.REMOVE;
      }
      return op;
    }

    private void run(Op op) {
      switch (op) {
        case PUT -> put();
        case PUT_BATCH -> putBatch();
        case GET -> get();
        case GET_BATCH -> getBatch();
        case REMOVE -> remove();
      }
    }

    private String newKey() {
      return "chaos/w" + index + "/" + nextKey++;
    }

    /**
     * Mostly around the mean size, one in twenty four times larger (past the 64 KiB of a small
     * body).
     */
    private int size() {
      int mean = settings.valueSize();
      int s = random.nextInt(20) == 0 ? 4 * mean : mean / 2 + random.nextInt(mean + 1);
      return Math.max(1, s);
    }

    private ByteBuffer prepare(String key) {
      int size = size();
      ByteBuffer value = values.value(key, size);
      ledger.writing(key, size, KeyValues.crc(value));
      return value;
    }

    private void acknowledged(String key) {
      ledger.acknowledged(key);
      mine.add(key);
      unpinned.add(key);
      live.incrementAndGet();
      keysPut.increment();
    }

    private void put() {
      String key = newKey();
      ByteBuffer value = prepare(key);
      try {
        client.put(key, value, settings.replicas());
        acknowledged(key);
        ok.get(Op.PUT).increment();
      } catch (KvPoolException e) {
        ledger.putFailed(key);
        failed(Op.PUT, e);
      }
    }

    private void putBatch() {
      Map<String, ByteBuffer> batch = new LinkedHashMap<>();
      int n = 2 + random.nextInt(Math.max(1, settings.maxBatch() - 1));
      for (int i = 0; i < n; i++) {
        String key = newKey();
        batch.put(key, prepare(key));
      }
      BatchResult result;
      try {
        result = client.putBatch(batch, settings.replicas());
      } catch (KvPoolException e) {
        batch.keySet().forEach(ledger::putFailed);
        failed(Op.PUT_BATCH, e);
        return;
      }
      result.stored().forEach(this::acknowledged);
      result
          .alreadyPresent()
          .forEach(this::acknowledged); // unique keys: an earlier attempt of this call landed
      result.failures().keySet().forEach(ledger::putFailed);
      if (result.allSucceeded()) {
        ok.get(Op.PUT_BATCH).increment();
      } else {
        failed(Op.PUT_BATCH, result.failures().values().iterator().next());
      }
    }

    private String anyKey() {
      return mine.get(random.nextInt(mine.size()));
    }

    private void get() {
      String key = anyKey();
      readAt.put(key, System.nanoTime());
      ByteBuffer read;
      try {
        read = client.get(key);
      } catch (ObjectNotFoundException e) {
        if (String.valueOf(e.getMessage()).contains("still recovering")) {
          failed(Op.GET, e); // the leader's recovery outlasted the operation timeout: not an answer
        } else {
          missing(key, "get: " + e.getMessage());
          failed.get(Op.GET).increment();
        }
        return;
      } catch (ChecksumMismatchException e) {
        journal.violation(
            "corrupt read",
            "get of acknowledged " + key + " refused by the client: " + e.getMessage());
        failed.get(Op.GET).increment();
        return;
      } catch (KvPoolException e) {
        failed(Op.GET, e);
        return;
      }
      keysRead.increment();
      check(key, read, "get");
      ok.get(Op.GET).increment();
    }

    private void getBatch() {
      int n = Math.min(mine.size(), 2 + random.nextInt(Math.max(1, settings.maxBatch() - 1)));
      List<String> keys = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String key = anyKey();
        if (!keys.contains(key)) {
          keys.add(key);
          readAt.put(key, System.nanoTime());
        }
      }
      Map<String, ByteBuffer> read;
      try {
        read = client.getBatch(keys);
      } catch (ChecksumMismatchException e) {
        journal.violation(
            "corrupt read",
            "batch get of "
                + keys.size()
                + " acknowledged keys refused by the "
                + "client: "
                + e.getMessage());
        failed.get(Op.GET_BATCH).increment();
        return;
      } catch (KvPoolException e) {
        failed(Op.GET_BATCH, e);
        return;
      }
      boolean all = true;
      for (String key : keys) {
        ByteBuffer value = read.get(key);
        if (value == null) {
          missing(key, "batch get: absent from the answer");
          all = false;
        } else {
          keysRead.increment();
          all &= check(key, value, "batch get");
        }
      }
      (all ? ok : failed).get(Op.GET_BATCH).increment();
    }

    private void remove() {
      String key = unleasedKey();
      if (key == null) {
        get(); // every key drawn was read within the lease: read instead
        return;
      }
      boolean removed;
      try {
        removed = client.remove(key);
      } catch (KvPoolException e) {
        if (!String.valueOf(e.getMessage()).contains("read lease")) {
          // no answer: the remove may or may not have happened; the key leaves this worker's reads
          ledger.removeUncertain(key);
          forget(key);
          failed(Op.REMOVE, e);
        } else {
          // refused under a read lease of one of this worker's gets (a new leader holds every key
          // leased for a lease's length): not removed, still acknowledged; expected, not logged
          failed.get(Op.REMOVE).increment();
          lastError.put(Op.REMOVE, stamped(e.getClass().getSimpleName() + ": " + e.getMessage()));
        }
        return;
      }
      if (removed) {
        ledger.removed(key);
        ok.get(Op.REMOVE).increment();
      } else {
        // still acknowledged in the ledger: the final check reports it lost if it is gone for good
        missing(key, "remove answered that it is not stored");
        failed.get(Op.REMOVE).increment();
      }
      forget(key);
    }

    /**
     * A key this worker has not read within the read lease (and a margin), or null after a few
     * draws.
     */
    private String unleasedKey() {
      long now = System.nanoTime();
      for (int attempt = 0; attempt < 8; attempt++) {
        String key = anyKey();
        Long at = readAt.get(key);
        if (at == null || now - at > LEASE_MARGIN_NANOS) {
          return key;
        }
      }
      return null;
    }

    private void forget(String key) {
      int i = mine.indexOf(key);
      if (i >= 0) {
        mine.set(i, mine.get(mine.size() - 1));
        mine.remove(mine.size() - 1);
        live.decrementAndGet();
      }
      unpinned.remove(key);
      readAt.remove(key);
    }

    /**
     * Whether {@code read} is the acknowledged value (size and CRC32C; the final check compares
     * every byte).
     */
    private boolean check(String key, ByteBuffer read, String how) {
      Ledger.Entry e = ledger.entry(key);
      if (read.remaining() != e.size() || KeyValues.crc(read) != e.crc()) {
        journal.violation(
            "wrong bytes",
            how
                + " of acknowledged "
                + key
                + " returned "
                + read.remaining()
                + " bytes that are not its value ("
                + e.size()
                + " bytes)");
        return false;
      }
      return true;
    }

    private void missing(String key, String how) {
      if (ledger.firstMissing(key)) {
        journal.violation("acknowledged object missing during the run", key + ": " + how);
      }
      forget(key); // reported; the final check judges it again
    }

    private void failed(Op op, KvPoolException e) {
      failure(op, e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private String stamped(String error) {
    return "[" + journal.stamp() + ", during " + journal.step() + "] " + error;
  }

  /**
   * Counts a failed call and keeps its error, stamped with when it came and the fault step under
   * way; the first few are logged as they happen, so a failure can be set beside the fault log.
   */
  private void failure(Op op, String error) {
    long n = failedCalls.incrementAndGet();
    failed.get(op).increment();
    String stamped = stamped(error);
    lastError.put(op, stamped);
    if (n <= FAILURES_LOGGED) {
      journal.log("load: a " + op + " failed: " + stamped);
    } else if (n == FAILURES_LOGGED + 1) {
      journal.log("load: more calls failed; counted, no longer logged one by one");
    }
  }
}
