package io.kvpool.bench.compare;

import io.kvpool.bench.BenchmarkFailedException;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.PoolStats;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * {@code kvpool bench}: one workload (values of one size from N client threads) on a pool, next to
 * the machine's request/response limit ({@code nio-rr}), its memory copy rate ({@code memcpy}) and
 * Redis when it is installed, driven by the harness of {@code kvpool bench compare}; prints the
 * figures and kvpool's ratios from the same run instead of a report. Works on a local pool or on a
 * shared one, which it never fills past its eviction watermark and leaves as it found it.
 */
public final class QuickBench {
  /** Fraction of the pool's capacity the working set may take. */
  private static final double POOL_FILL = 0.5;

  /** Usage the benchmark never goes beyond, below the default eviction watermark of 0.90. */
  private static final double SAFE_USAGE = 0.8;

  private static final long MAX_WORKING_SET = 256L << 20;
  private static final int WARM_VALUE_BYTES = 16 << 10;

  /** How long the memory copy rate is measured, at most. */
  private static final double MEMCPY_SECONDS = 2.0;

  /** Working set of each warm-up pass: small beside the pool, so the first fill stays first. */
  private static final long WARM_SET_BYTES = 64L << 20;

  /**
   * The row "full": how a cache's steady state puts, each making room by eviction. An untimed put
   * of twice the pool's memory's worth of values fills it (its second half already evicting, so
   * that the JVMs have compiled eviction before it is timed); then the pool's memory's worth is put
   * under fresh keys, timed (for at most this many seconds).
   */
  private static final double FULL_PUT_SECONDS = 60;

  /** The op of the row measured by {@link #FULL_PUT_SECONDS}. */
  static final String FULL = "full";

  /** Largest value: what the harness's per-client buffers hold. */
  public static final int MAX_VALUE_BYTES = StoreTarget.BUFFER_BYTES;

  /** Most client threads the harness drives. */
  public static final int MAX_CLIENTS = StoreTarget.MAX_CLIENTS;

  /**
   * What to run.
   *
   * @param perTarget split evenly between the put and the get phase
   * @param pools the pools measured, each a target of its own in the same run (e.g. one per way of
   *     serving reads); of equal capacity
   * @param client how the benchmark's clients reach the pools (key, TLS)
   * @param warmUp the longest untimed warm-up of one target ({@link JitWarmUp})
   * @param full also measure puts into a full pool, the row {@code full} ({@link #FULL}): local
   *     pools only, as it evicts everything else they hold
   */
  public record Settings(
      int valueSize,
      int clients,
      int replicas,
      Duration perTarget,
      List<Pool> pools,
      UnaryOperator<ClientConfig.Builder> client,
      boolean extents,
      Duration warmUp,
      boolean full) {

    /** The first pool's master endpoints. */
    String master() {
      return pools.get(0).master();
    }
  }

  /**
   * One pool under test.
   *
   * @param name its target's name ({@code kvpool}, or {@code kvpool-<variant>})
   * @param master its master endpoints
   * @param processes its processes by role ({@code master}, {@code storage}) when they run on this
   *     machine, so that their CPU time is measured; empty for a remote pool
   */
  public record Pool(String name, String master, Map<String, List<ProcessHandle>> processes) {}

  private QuickBench() {}

  public static void run(Settings s, PrintStream out) throws Exception {
    long workingSet = workingSet(s);
    double half = s.perTarget().toMillis() / 2e3;
    Phase phase = new Phase(workingSet, half, half);
    Workload w = Workload.single(s.valueSize(), s.clients());
    out.printf(
        Locale.ROOT,
        "value %s, %d clients, replicas %d, working set %s (%d keys per client), up to %.1f s put"
            + " + %.1f s get per target%n",
        Workload.size(s.valueSize()),
        s.clients(),
        s.replicas(),
        Workload.size(workingSet),
        phase.keysPerClient(w),
        half,
        half);
    List<Target> targets = new ArrayList<>();
    PeerServer redis = null;
    try {
      targets.add(
          new StoreTarget(
              "nio-rr",
              Target.Family.LIMIT,
              "request/response over loopback, Java NIO",
              new NioRrStore(),
              Map.of(),
              true));
      for (Pool pool : s.pools()) {
        targets.add(
            new StoreTarget(
                pool.name(),
                Target.Family.KVPOOL,
                "kvpool through its Java client",
                new KvPoolStore(pool.master(), s.replicas(), s.client()),
                pool.processes(),
                true));
        if (s.extents()) {
          // the same pool, small puts through extents (protocol 2.4): before/after in one run
          targets.add(
              new StoreTarget(
                  pool.name() + "-extents",
                  Target.Family.KVPOOL,
                  "kvpool through its Java client, small puts through extents",
                  new KvPoolStore(
                      pool.master(), s.replicas(), b -> s.client().apply(b).extents(true)),
                  pool.processes(),
                  true));
        }
      }
      Path redisBinary = CompareSuite.which("redis-server");
      if (redisBinary != null) {
        redis = PeerServer.redis(redisBinary, Files.createTempFile("kvpool-bench-redis-", ".log"));
        targets.add(
            new StoreTarget(
                "redis",
                Target.Family.PEER,
                "Redis",
                new RedisStore(redis.address()),
                Map.of("redis-server", List.of(redis.handle())),
                true));
      }
      // untimed passes until the JIT has compiled every process's request paths: thousands of
      // small values (a few hundred large ones leave the master's put path to be compiled while
      // measured), then the workload's own values over a few keys; then the workload's first fill,
      // measured as "fill": the first time each server stores that much (a fresh pool's memory,
      // unless its nodes prefault it); then the timed round on warm memory
      List<Workload> warmWorkloads =
          s.valueSize() <= WARM_VALUE_BYTES
              ? List.of(w)
              : List.of(Workload.single(WARM_VALUE_BYTES, s.clients()), w);
      JitWarmUp warmUp =
          new JitWarmUp(
              warmWorkloads,
              new Phase(Math.min(workingSet, WARM_SET_BYTES), half, Math.min(half, 1.0)),
              s.warmUp());
      Phase warm = new Phase(workingSet, half, Math.min(half, 1.0));
      List<Measurement> results = new ArrayList<>();
      for (Target t : targets) {
        warmUp.run(t, out);
        results.add(asFill(t.run(w, 0, warm).get(0)));
      }
      for (Target t : targets) {
        results.addAll(t.run(w, 1, phase));
      }
      if (s.full()) {
        long values = capacity(s) / s.replicas();
        Phase full = new Phase(values, FULL_PUT_SECONDS, 0, 2 * values);
        for (Target t : targets) {
          if (t.family() == Target.Family.KVPOOL) {
            results.add(renamed(t.run(w, 2, full).get(0), FULL));
          }
        }
      }
      // the machine's memory copy rate for value-sized blocks, measured after the targets: the
      // same machine's figures move with it (a VM's memory bandwidth changes with its neighbours)
      try (MemcpyTarget memcpy = new MemcpyTarget(workingSet)) {
        results.addAll(memcpy.run(w, 1, new Phase(workingSet, 0, Math.min(half, MEMCPY_SECONDS))));
      }
      print(results, s, out);
      if (redis == null) {
        out.println(
            "redis: skipped, no redis-server on PATH (apt-get install redis-server to compare)");
      }
      if (s.pools().stream().allMatch(p -> p.processes().isEmpty())) {
        out.println(
            "(kvpool CPU counts only this client: the pool's processes are not on this machine's process"
                + " list)");
      }
    } finally {
      for (Target t : targets) {
        t.close(); // removes the keys the benchmark stored
      }
      if (redis != null) {
        redis.close();
      }
    }
  }

  /**
   * The bytes of values each target stores: at most half the pool, and never past 80 % of it in
   * use.
   */
  private static long workingSet(Settings s) {
    PoolStats stats = stats(s);
    long room =
        Math.min(
                (long) (stats.capacityBytes() * POOL_FILL),
                (long) (stats.capacityBytes() * SAFE_USAGE) - stats.usedBytes())
            / s.replicas();
    long least = (long) s.valueSize() * s.clients();
    if (room < least) {
      throw new BenchmarkFailedException(
          "the pool at "
              + s.master()
              + " has "
              + stats.usedBytes()
              + " of "
              + stats.capacityBytes()
              + " bytes in use: too full to hold "
              + s.clients()
              + " values of "
              + s.valueSize()
              + " bytes x "
              + s.replicas()
              + " replicas without evicting; use fewer or smaller values or a pool with more"
              + " free memory");
    }
    return Math.max(least, Math.min(MAX_WORKING_SET, room));
  }

  /** The memory of the (first) pool, for values and their replicas. */
  private static long capacity(Settings s) {
    return stats(s).capacityBytes();
  }

  private static PoolStats stats(Settings s) {
    try (KvPoolClient probe =
        KvPoolClient.connect(
            s.client()
                .apply(ClientConfig.builder().master(s.master()).clientId("bench-probe"))
                .build())) {
      return probe.stats();
    }
  }

  private static void print(List<Measurement> results, Settings s, PrintStream out) {
    String format = "%-8s %-4s %8s %10s %10s %10s %11s  %s%n";
    out.printf(
        Locale.ROOT,
        format,
        "TARGET",
        "OP",
        "GB/s",
        "ops/s",
        "p50 us",
        "p99 us",
        "CPU us/op",
        "CPU us/op by process");
    for (Measurement m : results) {
      out.printf(
          Locale.ROOT,
          format,
          m.target(),
          m.op(),
          String.format(Locale.ROOT, "%.3f", m.gigabytesPerSecond()),
          round(m.opsPerSecond()),
          m.latencyMicros()[0] > 0 ? round(m.latencyMicros()[0]) : "-",
          m.latencyMicros()[2] > 0 ? round(m.latencyMicros()[2]) : "-",
          round(m.totalCpuMicrosPerOp()),
          m.cpu().byProcess());
    }
    out.println(
        "(JIT n): the part of a JVM's CPU us/op its C1/C2 compiler threads took; >= where one of"
            + " them exited during the phase");
    List<String> others = new ArrayList<>(List.of("nio-rr", "redis"));
    for (Pool pool : s.pools()) {
      find(results, pool.name(), FULL)
          .ifPresent(
              full -> {
                Measurement put = find(results, pool.name(), "put").orElseThrow();
                out.printf(
                    Locale.ROOT,
                    "ratio %s full/put: %.2f (CPU us/op %.0f vs %.0f; full: every put into a full"
                        + " pool evicts)%n",
                    pool.name(),
                    full.gigabytesPerSecond() / put.gigabytesPerSecond(),
                    full.totalCpuMicrosPerOp(),
                    put.totalCpuMicrosPerOp());
              });
      for (String op : List.of("fill", "put", "get")) {
        Measurement kvpool = find(results, pool.name(), op).orElseThrow();
        find(results, pool.name() + "-extents", op)
            .ifPresent(
                m ->
                    out.printf(
                        Locale.ROOT,
                        "ratio %s-extents/%s %s: %.2f (CPU us/op %.0f vs %.0f)%n",
                        pool.name(),
                        pool.name(),
                        op,
                        m.gigabytesPerSecond() / kvpool.gigabytesPerSecond(),
                        m.totalCpuMicrosPerOp(),
                        kvpool.totalCpuMicrosPerOp()));
        for (String other : others) {
          find(results, other, op)
              .ifPresent(
                  m ->
                      out.printf(
                          Locale.ROOT,
                          "ratio %s/%s %s: %.2f%s%n",
                          pool.name(),
                          other,
                          op,
                          kvpool.gigabytesPerSecond() / m.gigabytesPerSecond(),
                          !op.equals("get") && s.replicas() > 1
                              ? " (GB/s of values stored; kvpool sends each value "
                                  + s.replicas()
                                  + " times)"
                              : ""));
        }
      }
      find(results, "memcpy", "copy")
          .ifPresent(
              copy ->
                  out.printf(
                      Locale.ROOT,
                      "ratio %s/memcpy fill, put, get: %.2f, %.2f, %.2f (memcpy: %d threads copying"
                          + " %s blocks between two working-set-sized regions, %.3f GB/s)%n",
                      pool.name(),
                      perCopy(results, pool.name(), "fill", copy),
                      perCopy(results, pool.name(), "put", copy),
                      perCopy(results, pool.name(), "get", copy),
                      s.clients(),
                      Workload.size(s.valueSize()),
                      copy.gigabytesPerSecond()));
      others.add(pool.name()); // each later pool also next to the earlier ones
    }
  }

  private static double perCopy(
      List<Measurement> results, String target, String op, Measurement copy) {
    return find(results, target, op).orElseThrow().gigabytesPerSecond() / copy.gigabytesPerSecond();
  }

  /** A first fill's put phase, as the row "fill". */
  private static Measurement asFill(Measurement put) {
    return renamed(put, "fill");
  }

  /** A put phase as the row {@code op}. */
  private static Measurement renamed(Measurement put, String op) {
    return new Measurement(
        put.workload(),
        put.target(),
        op,
        put.round(),
        put.ops(),
        put.bytes(),
        put.wallNanos(),
        put.latencyMicros(),
        put.cpu(),
        put.notes());
  }

  private static String round(double value) {
    return String.format(Locale.ROOT, "%.0f", value);
  }

  private static Optional<Measurement> find(List<Measurement> results, String target, String op) {
    return results.stream().filter(m -> m.target().equals(target) && m.op().equals(op)).findFirst();
  }
}
