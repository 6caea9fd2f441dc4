package io.kvpool.bench;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.PoolStats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code kvpool bench}: the same put-then-get workload against the raw NIO loopback baseline, kvpool and
 * (when installed) Redis, in one run, so the printed ratios compare like with like on this machine now.
 */
public final class Benchmark {

  /** Fraction of the pool's capacity one put round may fill. */
  private static final double POOL_FILL = 0.5;
  /** Usage the benchmark never goes beyond, below the default eviction watermark of 0.90. */
  private static final double SAFE_USAGE = 0.8;
  private static final int MAX_KEYS_PER_CLIENT = 2048;
  private static final String BENCH_JVM = "client+server";
  private static final String CLIENT = "client";

  /**
   * What to run; {@code perTarget} is split evenly between the put and the get phase. {@code cleanUp} removes
   * the benchmark's keys at the end (for a pool that outlives the benchmark). {@code poolProcesses} are the
   * pool's processes by role ({@code master}, {@code storage}) when they run on this machine, so their CPU
   * time can be measured; empty for a remote pool.
   */
  public record Settings(int valueSize, int clients, int replicas, Duration perTarget, String masterAddress,
      boolean cleanUp, Map<String, List<ProcessHandle>> poolProcesses) {
  }

  private Benchmark() {
  }

  public static void run(Settings settings, PrintStream out) throws IOException, InterruptedException {
    PoolStats stats;
    try (KvPoolClient probe = KvPoolClient.connect(ClientConfig.builder().master(settings.masterAddress())
        .clientId("bench-probe").build())) {
      stats = probe.stats();
    }
    // stay clear of the eviction watermark so the benchmark never evicts what a shared pool already holds
    long room = Math.min((long) (stats.capacityBytes() * POOL_FILL),
        (long) (stats.capacityBytes() * SAFE_USAGE) - stats.usedBytes());
    long perKey = (long) settings.valueSize() * settings.replicas();
    if (room < perKey * settings.clients()) {
      throw new BenchmarkFailedException("the pool at " + settings.masterAddress() + " has " + stats.usedBytes()
          + " of " + stats.capacityBytes() + " bytes in use: too full to hold " + settings.clients() + " values of "
          + settings.valueSize() + " bytes x " + settings.replicas() + " replicas without evicting; use fewer or "
          + "smaller values or a pool with more free memory");
    }
    int keysPerClient = (int) Math.min(MAX_KEYS_PER_CLIENT, room / perKey / settings.clients());
    Duration phase = settings.perTarget().dividedBy(2);
    BenchPlan plan = new BenchPlan(settings.valueSize(), settings.clients(), keysPerClient, phase, phase);
    out.printf(Locale.ROOT, "value %d bytes, %d clients, replicas %d, %d keys per client per round, "
            + "%.1f s put + %.1f s get per target%n", settings.valueSize(), settings.clients(), settings.replicas(),
        keysPerClient, phase.toMillis() / 1e3, phase.toMillis() / 1e3);

    List<PhaseResult> results = new ArrayList<>();
    results.addAll(new TargetBenchmark(plan, new LoopbackBaseline(), true, CpuMeter.thisProcessOnly(BENCH_JVM))
        .run());
    Map<String, List<ProcessHandle>> kvpoolProcesses = new LinkedHashMap<>();
    kvpoolProcesses.put(CLIENT, List.of(ProcessHandle.current()));
    kvpoolProcesses.putAll(settings.poolProcesses());
    results.addAll(new TargetBenchmark(plan, new KvPoolTarget(settings.masterAddress(), settings.replicas()),
        settings.cleanUp(), new CpuMeter(kvpoolProcesses)).run());
    Optional<Path> redisBinary = RedisServer.findBinary();
    String redisNote = null;
    if (redisBinary.isPresent()) {
      Path log = Files.createTempFile("kvpool-bench-redis-", ".log");
      try (RedisServer redis = RedisServer.start(redisBinary.get(), log)) {
        Map<String, List<ProcessHandle>> redisProcesses = new LinkedHashMap<>();
        redisProcesses.put(CLIENT, List.of(ProcessHandle.current()));
        redisProcesses.put("redis-server", List.of(redis.handle()));
        results.addAll(new TargetBenchmark(plan, new RedisTarget(redis.address()), false,
            new CpuMeter(redisProcesses)).run());
      }
    } else {
      redisNote = "redis: skipped, no redis-server on PATH (apt-get install redis-server to compare)";
    }
    print(results, settings.replicas(), out);
    if (redisNote != null) {
      out.println(redisNote);
    }
    if (settings.poolProcesses().isEmpty()) {
      out.println("(kvpool CPU counts only this client: the pool's processes are not on this machine's process list)");
    }
  }

  private static void print(List<PhaseResult> results, int replicas, PrintStream out) {
    String format = "%-13s %-4s %8s %10s %10s %10s %11s  %s%n";
    out.printf(Locale.ROOT, format, "TARGET", "OP", "GB/s", "ops/s", "p50 us", "p99 us", "CPU us/op", "CPU us/op by process");
    for (PhaseResult r : results) {
      List<String> split = new ArrayList<>();
      r.cpuNanos().keySet().forEach(group -> split.add(group + " " + round(r.cpuMicrosPerOp(group))));
      out.printf(Locale.ROOT, format, r.target(), r.operation(), String.format(Locale.ROOT, "%.3f", r.gigabytesPerSecond()),
          round(r.opsPerSecond()), round(r.p50Micros()), round(r.p99Micros()), round(r.cpuMicrosPerOp(null)),
          String.join(", ", split));
    }
    for (String op : List.of("put", "get")) {
      PhaseResult kvpool = find(results, "kvpool", op).orElseThrow();
      PhaseResult baseline = find(results, "nio-baseline", op).orElseThrow();
      out.printf(Locale.ROOT, "ratio kvpool/nio-baseline %s: %.2f%s%n", op,
          kvpool.gigabytesPerSecond() / baseline.gigabytesPerSecond(),
          op.equals("put") && replicas > 1 ? " (GB/s of values stored; kvpool sends each value " + replicas
              + " times)" : "");
      find(results, "redis", op).ifPresent(redis -> out.printf(Locale.ROOT, "ratio kvpool/redis %s: %.2f%n", op,
          kvpool.gigabytesPerSecond() / redis.gigabytesPerSecond()));
    }
  }

  private static String round(double value) {
    return String.format(Locale.ROOT, "%.0f", value);
  }

  private static Optional<PhaseResult> find(List<PhaseResult> results, String target, String op) {
    return results.stream().filter(r -> r.target().equals(target) && r.operation().equals(op)).findFirst();
  }
}
