package io.kvpool.bench.compare;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives a {@link Store} from this JVM, the same way for every store: N client threads; a put phase
 * that writes the working set once under fresh keys (stopping early after the phase's maximum),
 * then a get phase that reads those keys for a fixed time, each value checked (length and an 8-byte
 * stamp derived from its key). Batches are consecutive keys, put and read as one request each. Keys
 * of the previous run are removed, untimed, before the next run of the same target.
 */
final class StoreTarget implements Target {
  /** Largest batch in bytes (32 x 512 KiB) and largest single value. */
  static final int BUFFER_BYTES = 16 << 20;

  static final int MAX_CLIENTS = 8;

  /** Longest untimed prefill of a run ({@link Phase#prefillBytes}). */
  private static final double PREFILL_MAX_SECONDS = 300;

  private static ByteBuffer[] values;
  private static ByteBuffer[] dsts;

  private final String name;
  private final Family family;
  private final String description;
  private final Store store;
  private final Cpu cpu;
  private final boolean single;
  private final ExecutorService threads;
  private final List<List<String>> pending = new ArrayList<>();

  StoreTarget(
      String name,
      Family family,
      String description,
      Store store,
      Map<String, List<ProcessHandle>> cpu,
      boolean single)
      throws Exception {
    this.name = name;
    this.family = family;
    this.description = description;
    this.store = store;
    this.single = single;
    Map<String, List<ProcessHandle>> groups = new LinkedHashMap<>();
    groups.put("client", List.of(ProcessHandle.current()));
    groups.putAll(cpu);
    this.cpu = new Cpu(groups);
    this.threads =
        Executors.newFixedThreadPool(
            MAX_CLIENTS,
            r -> {
              Thread t = new Thread(r, "bench-" + name);
              t.setDaemon(true);
              return t;
            });
    buffers();
    store.open(MAX_CLIENTS);
  }

  /**
   * Value and destination buffers of every client, shared by all targets (they run one after the
   * other).
   */
  private static synchronized void buffers() {
    if (values != null) {
      return;
    }
    values = new ByteBuffer[MAX_CLIENTS];
    dsts = new ByteBuffer[MAX_CLIENTS];
    SplittableRandom random = new SplittableRandom(42);
    for (int c = 0; c < MAX_CLIENTS; c++) {
      values[c] = ByteBuffer.allocateDirect(BUFFER_BYTES);
      while (values[c].remaining() >= 8) {
        values[c].putLong(random.nextLong());
      }
      dsts[c] = ByteBuffer.allocateDirect(BUFFER_BYTES);
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Family family() {
    return family;
  }

  @Override
  public String description() {
    return description;
  }

  @Override
  public boolean supports(Workload w) {
    return w.kind() == Workload.Kind.SINGLE
        ? single
        : w.kind() == Workload.Kind.BATCH && store.supportsBatch();
  }

  /**
   * Runs the workload once. After a failure the store's connections are opened again before the
   * exception goes on: a reply cut short (a multi-get that lost a key) leaves the rest of it unread
   * on its connection, and the next command there would read those bytes as its answer.
   */
  @Override
  public List<Measurement> run(Workload w, int round, Phase phase) throws Exception {
    try {
      return runOnce(w, round, phase);
    } catch (Exception e) {
      store.close();
      try {
        store.open(MAX_CLIENTS);
      } catch (Exception reopen) {
        // the first failure says what went wrong; a retry will fail on the closed store
        e.addSuppressed(reopen);
      }
      throw e;
    }
  }

  private List<Measurement> runOnce(Workload w, int round, Phase phase) throws Exception {
    removePending();
    int keys = phase.keysPerClient(w);
    String prefix = "cmp/" + name + "/" + w.id() + "/r" + round;
    boolean batch = w.kind() == Workload.Kind.BATCH;
    int[] stored = new int[w.clients()];
    LatencyLog[] putLogs = new LatencyLog[w.clients()];
    if (phase.prefillBytes() > 0 && !batch) {
      prefill(w, prefix + "/prefill", phase);
    }
    store.notes();
    Cpu.Reading before = cpu.start();
    long putWall =
        timed(
            w.clients(),
            c -> {
              putLogs[c] = new LatencyLog();
              stored[c] =
                  batch
                      ? putBatches(w, c, prefix, keys, phase, putLogs[c])
                      : putSingles(w, c, prefix, keys, phase, putLogs[c]);
            });
    Cpu.Reading after = cpu.end();
    long putOps = 0;
    for (LatencyLog l : putLogs) {
      putOps += l.count();
    }
    Measurement put =
        new Measurement(
            w.id(),
            name,
            "put",
            round,
            putOps,
            putOps * w.bytesPerOp(),
            putWall,
            LatencyLog.percentiles(putLogs),
            Cpu.perOp(before, after, putOps),
            store.notes());
    removeLater(prefix, stored);
    LatencyLog[] getLogs = new LatencyLog[w.clients()];
    long getNanos = (long) (phase.getSeconds() * 1e9);
    before = cpu.start();
    long getWall =
        timed(
            w.clients(),
            c -> {
              getLogs[c] = new LatencyLog();
              if (batch) {
                getBatches(w, c, prefix, stored[c], getNanos, getLogs[c]);
              } else {
                getSingles(w, c, prefix, stored[c], getNanos, getLogs[c]);
              }
            });
    after = cpu.end();
    long getOps = 0;
    for (LatencyLog l : getLogs) {
      getOps += l.count();
    }
    Measurement get =
        new Measurement(
            w.id(),
            name,
            "get",
            round,
            getOps,
            getOps * w.bytesPerOp(),
            getWall,
            LatencyLog.percentiles(getLogs),
            Cpu.perOp(before, after, getOps),
            store.notes());
    return List.of(put, get);
  }

  /**
   * Puts {@code phase.prefillBytes()} of values under keys of {@code prefix}, untimed (their keys
   * removed with the run's).
   */
  private void prefill(Workload w, String prefix, Phase phase) throws Exception {
    int keys = Phase.keysPerClient(w, phase.prefillBytes());
    Phase untimed = new Phase(phase.prefillBytes(), PREFILL_MAX_SECONDS, 0);
    int[] stored = new int[w.clients()];
    timed(w.clients(), c -> stored[c] = putSingles(w, c, prefix, keys, untimed, new LatencyLog()));
    removeLater(prefix, stored);
  }

  /** Records the keys each client stored under {@code prefix}, for the next run to remove. */
  private void removeLater(String prefix, int[] stored) {
    for (int c = 0; c < stored.length; c++) {
      List<String> names = new ArrayList<>(stored[c]);
      for (int i = 0; i < stored[c]; i++) {
        names.add(key(prefix, c, i));
      }
      pending.add(names);
    }
  }

  private int putSingles(Workload w, int c, String prefix, int keys, Phase phase, LatencyLog log)
      throws Exception {
    ByteBuffer value = values[c];
    long until = System.nanoTime() + (long) (phase.putMaxSeconds() * 1e9);
    int i = 0;
    for (; i < keys && System.nanoTime() < until; i++) {
      String key = key(prefix, c, i);
      value.clear().limit(w.valueSize());
      value.putLong(0, stamp(key));
      long t0 = System.nanoTime();
      store.put(c, i, key, value);
      log.add(System.nanoTime() - t0);
    }
    return i;
  }

  private int putBatches(Workload w, int c, String prefix, int keys, Phase phase, LatencyLog log)
      throws Exception {
    int size = w.valueSize();
    ByteBuffer[] parts = new ByteBuffer[w.batch()];
    long until = System.nanoTime() + (long) (phase.putMaxSeconds() * 1e9);
    int done = 0;
    for (int b = 0; b < keys / w.batch() && System.nanoTime() < until; b++) {
      List<String> names = new ArrayList<>(w.batch());
      for (int j = 0; j < w.batch(); j++) {
        String key = key(prefix, c, b * w.batch() + j);
        names.add(key);
        parts[j] = values[c].duplicate().limit((j + 1) * size).position(j * size).slice();
        parts[j].putLong(0, stamp(key));
      }
      long t0 = System.nanoTime();
      store.putBatch(c, b * w.batch(), names, parts);
      log.add(System.nanoTime() - t0);
      done += w.batch();
    }
    return done;
  }

  private void getSingles(Workload w, int c, String prefix, int keys, long nanos, LatencyLog log)
      throws Exception {
    if (keys == 0) {
      return;
    }
    ByteBuffer dst = dsts[c];
    long until = System.nanoTime() + nanos;
    for (int i = ThreadLocalRandom.current().nextInt(keys);
        System.nanoTime() < until;
        i = (i + 1) % keys) {
      String key = key(prefix, c, i);
      dst.clear();
      long t0 = System.nanoTime();
      int n = store.get(c, i, key, dst);
      log.add(System.nanoTime() - t0);
      check(key, n, w.valueSize(), dst.getLong(0));
    }
  }

  private void getBatches(Workload w, int c, String prefix, int keys, long nanos, LatencyLog log)
      throws Exception {
    int batches = keys / w.batch();
    if (batches == 0) {
      return;
    }
    int size = w.valueSize();
    ByteBuffer[] parts = new ByteBuffer[w.batch()];
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() < until) {
      int b = ThreadLocalRandom.current().nextInt(batches);
      List<String> names = new ArrayList<>(w.batch());
      for (int j = 0; j < w.batch(); j++) {
        names.add(key(prefix, c, b * w.batch() + j));
        parts[j] = dsts[c].duplicate().limit((j + 1) * size).position(j * size).slice();
      }
      long t0 = System.nanoTime();
      ByteBuffer[] got = store.getBatch(c, b * w.batch(), names, parts);
      log.add(System.nanoTime() - t0);
      for (int j = 0; j < w.batch(); j++) {
        check(names.get(j), got[j].limit(), size, got[j].getLong(0));
      }
    }
  }

  private void check(String key, int length, int expected, long stampRead) {
    if (length != expected) {
      throw new IllegalStateException(
          name + " returned " + length + " bytes for " + key + ", expected " + expected);
    }
    if (stampRead != stamp(key)) {
      throw new IllegalStateException(name + " returned the wrong bytes for " + key);
    }
  }

  private void removePending() throws Exception {
    if (pending.isEmpty()) {
      return;
    }
    List<List<String>> work = new ArrayList<>(pending);
    pending.clear();
    AtomicLong next = new AtomicLong();
    timed(
        Math.min(MAX_CLIENTS, work.size()),
        c -> {
          for (long i = next.getAndIncrement(); i < work.size(); i = next.getAndIncrement()) {
            store.remove(c, work.get((int) i));
          }
        });
  }

  static String key(String prefix, int client, int index) {
    return prefix + "/c" + client + "/" + index;
  }

  /** 64-bit FNV-1a of the key: what its value starts with. */
  static long stamp(String key) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < key.length(); i++) {
      h ^= key.charAt(i);
      h *= 0x100000001b3L;
    }
    return h;
  }

  /** What one client thread does in a phase. */
  interface ClientWork {
    void run(int client) throws Exception;
  }

  /**
   * Runs {@code clients} threads from a common start; the wall time until the last one finished.
   */
  private long timed(int clients, ClientWork work) throws Exception {
    long[] start = new long[1];
    CyclicBarrier barrier = new CyclicBarrier(clients, () -> start[0] = System.nanoTime());
    long[] end = new long[clients];
    List<Callable<Void>> tasks = new ArrayList<>();
    for (int c = 0; c < clients; c++) {
      int client = c;
      tasks.add(
          () -> {
            barrier.await();
            work.run(client);
            end[client] = System.nanoTime();
            return null;
          });
    }
    List<Future<Void>> futures = threads.invokeAll(tasks);
    for (Future<Void> f : futures) {
      try {
        f.get();
      } catch (ExecutionException e) {
        barrier.reset();
        Throwable cause = e.getCause();
        throw cause instanceof Exception ex ? ex : new IllegalStateException(cause);
      }
    }
    long last = 0;
    for (long e : end) {
      last = Math.max(last, e - start[0]);
    }
    return last;
  }

  @Override
  public void close() {
    try {
      removePending();
    } catch (Exception e) {
      // the stores are thrown away with the suite
    }
    threads.shutdownNow();
    store.close();
  }
}
