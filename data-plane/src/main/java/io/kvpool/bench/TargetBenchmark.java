package io.kvpool.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a {@link BenchPlan} against one {@link BenchTarget}: an untimed warm-up, timed put rounds (keys of
 * the previous round, never read, are removed between rounds, untimed, so the store never fills up), then
 * a timed get phase over the keys of the last round. Keys that were read (warm-up, last round) are removed
 * at the end only when {@code cleanUp} is set, since a store may hold them under read leases for a while. Each get is checked: length always, and the 8-byte
 * stamp written into every value where the target stores values.
 */
final class TargetBenchmark {

  private static final int WARMUP_KEYS = 8;
  /**
   * Untimed time per phase before measuring, the same for every target: long enough for the JIT to compile
   * the hot paths of every process involved (the pool's processes sit idle until their target runs).
   */
  private static final long WARMUP_NANOS = 2_000_000_000L;

  private final BenchPlan plan;
  private final BenchTarget target;
  private final ExecutorService threads;
  private final ByteBuffer[] values;
  private final ByteBuffer[] readBuffers;

  private final boolean cleanUp;
  private final CpuMeter cpu;

  TargetBenchmark(BenchPlan plan, BenchTarget target, boolean cleanUp, CpuMeter cpu) {
    this.plan = plan;
    this.cleanUp = cleanUp;
    this.cpu = cpu;
    this.target = target;
    this.threads = Executors.newFixedThreadPool(plan.clients(), runnable -> {
      Thread thread = new Thread(runnable, "bench-" + target.name());
      thread.setDaemon(true);
      return thread;
    });
    this.values = new ByteBuffer[plan.clients()];
    this.readBuffers = new ByteBuffer[plan.clients()];
    SplittableRandom random = new SplittableRandom(42);
    for (int c = 0; c < plan.clients(); c++) {
      values[c] = ByteBuffer.allocateDirect(plan.valueSize());
      while (values[c].remaining() >= 8) {
        values[c].putLong(random.nextLong());
      }
      readBuffers[c] = ByteBuffer.allocateDirect(plan.valueSize());
    }
  }

  /** Returns the put and the get result, in that order. */
  List<PhaseResult> run() {
    try {
      target.open(plan.clients(), plan.valueSize(), plan.keysPerClient());
      String warmupRound = warmUp();

      Latencies putLatencies = new Latencies();
      long putWall = 0;
      Map<String, Long> putCpu = new LinkedHashMap<>();
      int round = 0;
      while (putWall < plan.putTime().toNanos()) {
        if (round > 0) {
          removeRound("r" + (round - 1), plan.keysPerClient());
        }
        Latencies[] perClient = new Latencies[plan.clients()];
        Map<String, Long> cpuBefore = cpu.read();
        long start = System.nanoTime();
        putRound("r" + round, plan.keysPerClient(), perClient);
        putWall += System.nanoTime() - start;
        CpuMeter.used(cpuBefore, cpu.read()).forEach((group, nanos) -> putCpu.merge(group, nanos, Long::sum));
        for (Latencies l : perClient) {
          putLatencies.addAll(l);
        }
        round++;
      }
      String lastRound = "r" + (round - 1);

      Map<String, Long> cpuBefore = cpu.read();
      long start = System.nanoTime();
      Latencies[] getPerClient = getUntil(lastRound, plan.keysPerClient(), start + plan.getTime().toNanos());
      long getWall = System.nanoTime() - start;
      Map<String, Long> getCpu = CpuMeter.used(cpuBefore, cpu.read());
      Latencies getLatencies = new Latencies();
      for (Latencies l : getPerClient) {
        getLatencies.addAll(l);
      }
      if (cleanUp) {
        removeRound(warmupRound, warmupKeys());
        removeRound(lastRound, plan.keysPerClient());
      }
      return List.of(PhaseResult.of(target.name(), "put", plan.valueSize(), putWall, putLatencies, putCpu),
          PhaseResult.of(target.name(), "get", plan.valueSize(), getWall, getLatencies, getCpu));
    } finally {
      threads.shutdownNow();
      target.close();
    }
  }

  /** Put rounds, then gets of the last one, each for {@link #WARMUP_NANOS}; returns the round left stored. */
  private String warmUp() {
    long deadline = System.nanoTime() + WARMUP_NANOS;
    int round = 0;
    do {
      if (round > 0) {
        removeRound("warmup" + (round - 1), warmupKeys());
      }
      putRound("warmup" + round, warmupKeys(), new Latencies[plan.clients()]);
      round++;
    } while (System.nanoTime() < deadline);
    String last = "warmup" + (round - 1);
    getUntil(last, warmupKeys(), System.nanoTime() + WARMUP_NANOS);
    return last;
  }

  private int warmupKeys() {
    return Math.min(WARMUP_KEYS, plan.keysPerClient());
  }

  private void putRound(String round, int keys, Latencies[] perClient) {
    inParallel(client -> {
      Latencies latencies = new Latencies();
      ByteBuffer value = values[client];
      for (int i = 0; i < keys; i++) {
        String key = key(round, client, i);
        value.clear();
        value.putLong(0, stamp(round, client, i));
        long t0 = System.nanoTime();
        target.put(client, i, key, value);
        latencies.add(System.nanoTime() - t0);
      }
      perClient[client] = latencies;
    });
  }

  private Latencies[] getUntil(String round, int keys, long deadlineNanos) {
    Latencies[] perClient = new Latencies[plan.clients()];
    inParallel(client -> {
      Latencies latencies = new Latencies();
      ByteBuffer dst = readBuffers[client];
      for (int i = 0; System.nanoTime() < deadlineNanos; i = (i + 1) % keys) {
        String key = key(round, client, i);
        dst.clear();
        long t0 = System.nanoTime();
        int length = target.get(client, i, key, dst);
        latencies.add(System.nanoTime() - t0);
        check(key, length, dst, stamp(round, client, i));
      }
      perClient[client] = latencies;
    });
    return perClient;
  }

  private void removeRound(String round, int keys) {
    inParallel(client -> {
      for (int i = 0; i < keys; i++) {
        target.remove(client, key(round, client, i));
      }
    });
  }

  private void check(String key, int length, ByteBuffer dst, long expectedStamp) {
    if (length != plan.valueSize()) {
      throw new BenchmarkFailedException(target.name() + " returned " + length + " bytes for key " + key
          + ", expected " + plan.valueSize());
    }
    if (target.storesValues() && dst.getLong(0) != expectedStamp) {
      throw new BenchmarkFailedException(target.name() + " returned wrong bytes for key " + key
          + ": stamp " + Long.toHexString(dst.getLong(0)) + ", expected " + Long.toHexString(expectedStamp));
    }
  }

  private static String key(String round, int client, int index) {
    return "bench/" + round + "/c" + client + "/" + index;
  }

  private static long stamp(String round, int client, int index) {
    return ((long) round.hashCode() << 32) ^ ((long) client << 24) ^ index;
  }

  private interface ClientTask {
    void run(int client) throws Exception;
  }

  private void inParallel(ClientTask task) {
    List<Callable<Void>> tasks = new ArrayList<>();
    for (int c = 0; c < plan.clients(); c++) {
      int client = c;
      tasks.add(() -> {
        task.run(client);
        return null;
      });
    }
    try {
      for (Future<Void> done : threads.invokeAll(tasks)) {
        done.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("benchmark of " + target.name() + " interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof BenchmarkFailedException failed) {
        throw failed;
      }
      throw new BenchmarkFailedException("benchmark of " + target.name() + " failed: " + cause, cause);
    }
  }
}
