package io.kvpool.bench.compare;

import io.kvpool.client.ClientConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * {@code kvpool bench compare}: kvpool, its peers and the machine's limits under the same workloads
 * on loopback, targets interleaved round by round so that every ratio compares figures of the same
 * minutes; then the report ({@code docs/benchmarks.md}, its results file and charts).
 */
public final class CompareSuite {
  private final CompareSettings settings;
  private final PrintStream out;
  private final List<Target> targets = new ArrayList<>();
  private final List<PeerServer> servers = new ArrayList<>();
  private final Map<String, String> skipped = new LinkedHashMap<>();
  private final TargetRuns runs;
  private final List<Measurement> results = new ArrayList<>();
  private final List<double[]> load = new ArrayList<>();

  public CompareSuite(CompareSettings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
    this.runs = new TargetRuns(settings.phase(), out);
  }

  /**
   * Runs the suite against the local pool at {@code masterAddress} whose processes are {@code pool}
   * (by role: {@code master}, {@code storage}); writes the report; returns its path.
   */
  public Path run(String masterAddress, Map<String, List<ProcessHandle>> pool) throws Exception {
    return run(masterAddress, pool, List.of());
  }

  /**
   * As {@link #run(String, Map)}, with {@code otherPools}, each measured as the target of its name
   * ({@value #SENDFILE}, {@value #ONE_NODE}) through the default Java client.
   */
  public Path run(
      String masterAddress, Map<String, List<ProcessHandle>> pool, List<QuickBench.Pool> otherPools)
      throws Exception {
    Instant started = Instant.now();
    try {
      startTargets(masterAddress, pool);
      for (QuickBench.Pool other : otherPools) {
        targets.add(
            new StoreTarget(
                other.name(),
                Target.Family.KVPOOL,
                POOL_DESCRIPTIONS.get(other.name()),
                new KvPoolStore(other.master(), 1, b -> b),
                other.processes(),
                true));
      }
      List<Workload> workloads = settings.workloads();
      if (settings.warmUp()) {
        warmUp(workloads);
      }
      for (int round = 1; round <= settings.rounds(); round++) {
        out.printf(
            Locale.ROOT,
            "round %d of %d (load average %s)%n",
            round,
            settings.rounds(),
            loadAverage());
        for (Workload w : workloads) {
          List<Target> order = rotated(round);
          for (Target t : order) {
            if (!t.supports(w)) {
              continue;
            }
            List<Measurement> ms = runs.run(t, w, round);
            results.addAll(ms);
            for (Measurement m : ms) {
              out.printf(
                  Locale.ROOT,
                  "  %-34s %-16s %-4s %8.3f GB/s %10.0f ops/s  p50 %7.0f us  CPU %6.0f us/op%n",
                  w.label(),
                  t.name(),
                  m.op(),
                  m.gigabytesPerSecond(),
                  m.opsPerSecond(),
                  m.latencyMicros()[0],
                  m.totalCpuMicrosPerOp());
            }
          }
        }
      }
    } finally {
      closeAll();
    }
    Duration took = Duration.between(started, Instant.now());
    Report report =
        new Report(settings, targets, skipped, runs.peerFailures(), results, load, took);
    Path md = report.write();
    report.printHeadline(out);
    charts(md.getParent());
    out.println(
        "report: " + md + " (" + took.toMinutesPart() + " min " + took.toSecondsPart() + " s)");
    return md;
  }

  /** Starts the targets; one that cannot run is skipped with the reason (the report says why). */
  private void startTargets(String master, Map<String, List<ProcessHandle>> pool) throws Exception {
    long ws = settings.phase().workingSetBytes();
    Path logs = Files.createTempDirectory("kvpool-compare-");
    out.println("logs of the peers and agents: " + logs);
    if (settings.wants("loopback-stream")) {
      targets.add(new StreamTarget(ws));
    }
    if (settings.wants("memcpy")) {
      targets.add(new MemcpyTarget(ws));
    }
    if (settings.wants("nio-rr")) {
      targets.add(
          new StoreTarget(
              "nio-rr",
              Target.Family.LIMIT,
              "request/response over loopback, Java NIO, one"
                  + " reply per request, values in the server's memory, no protocol",
              new NioRrStore(),
              Map.of(),
              true));
    }
    for (KvPoolVariant v : KvPoolVariant.values()) {
      if (settings.wants(v.target)) {
        targets.add(
            new StoreTarget(
                v.target,
                Target.Family.KVPOOL,
                v.description,
                new KvPoolStore(master, v.replicas, v.settings),
                pool,
                v.singleValues));
      }
    }
    if (settings.wants("kvpool-py")) {
      Path python = settings.venv().resolve("bin/python");
      try {
        targets.add(
            AgentTarget.start(
                "kvpool-py",
                Target.Family.KVPOOL,
                "kvpool through its Python client (R=1)," + " one worker process per client",
                List.of(
                    python.toString(),
                    agentScript().toString(),
                    "agent",
                    "--kind",
                    "kvpool",
                    "--master",
                    master,
                    "--workers",
                    "8",
                    "--replicas",
                    "1",
                    "--kvpool-python",
                    settings.home().resolve("data-plane/python").toString()),
                Map.of(),
                logs.resolve("kvpool-py.log"),
                pool));
      } catch (IOException e) {
        skip("kvpool-py", e.getMessage());
      }
    }
    if (settings.wants("redis")) {
      Path binary = which("redis-server");
      if (binary == null) {
        skip("redis", "no redis-server on PATH");
      } else {
        PeerServer redis = PeerServer.redis(binary, logs.resolve("redis.log"));
        servers.add(redis);
        targets.add(
            new StoreTarget(
                "redis",
                Target.Family.PEER,
                version(binary, "--version")
                    + ", no persistence; SET/GET, batches as pipelined SETs and one MGET",
                new RedisStore(redis.address()),
                Map.of("redis-server", List.of(redis.handle())),
                true));
      }
    }
    if (settings.wants("memcached")) {
      Path binary = which("memcached");
      if (binary == null) {
        skip("memcached", "no memcached on PATH");
      } else {
        PeerServer mc = PeerServer.memcached(binary, logs.resolve("memcached.log"));
        servers.add(mc);
        targets.add(
            new StoreTarget(
                "memcached",
                Target.Family.PEER,
                version(binary, "-V")
                    + ", 4 threads, text protocol; batches as pipelined sets and one multi-key get",
                new MemcachedStore(mc.address()),
                Map.of("memcached", List.of(mc.handle())),
                true));
      }
    }
    if (settings.wants("mooncake")) {
      startMooncake(logs);
    }
    if (settings.wants("kvpool-master")) {
      targets.add(new MetaTarget(master, pool));
    }
    for (Target t : targets) {
      out.println("target " + t.name() + ": " + t.description());
    }
    skipped.forEach((t, why) -> out.println("target " + t + ": skipped, " + why));
  }

  /** Mooncake Store over TCP, inside a network namespace of its own where only loopback exists. */
  private void startMooncake(Path logs) throws InterruptedException {
    Path python = settings.venv().resolve("bin/python");
    Path master = settings.venv().resolve("bin/mooncake_master");
    if (!Files.isExecutable(master)) {
      skip(
          "mooncake",
          "mooncake_master is not installed in "
              + settings.venv()
              + " (pip install mooncake-transfer-engine-non-cuda; the setup step does it)");
      return;
    }
    Path unshare = which("unshare");
    Path ip = which("ip");
    if (unshare == null || ip == null) {
      skip(
          "mooncake",
          "unshare or ip is missing: Mooncake's ports listen on all addresses, so it runs only in a"
              + " private network namespace");
      return;
    }
    String version = "0.3.13.post1";
    try {
      version =
          new String(
                  new ProcessBuilder(
                          python.toString(),
                          "-c",
                          "import importlib.metadata as m; print(m.version('mooncake-transfer-engine-non-cuda'))")
                      .start()
                      .getInputStream()
                      .readAllBytes())
              .trim();
    } catch (IOException ignored) {
      // keep the default
    }
    List<String> command =
        List.of(
            unshare.toString(),
            "-n",
            "--",
            "sh",
            "-c",
            "ip link set lo up && exec \"$0\" \"$@\"",
            python.toString(),
            agentScript().toString(),
            "agent",
            "--kind",
            "mooncake",
            "--workers",
            "8",
            "--segment-bytes",
            Long.toString(3L * settings.phase().workingSetBytes()),
            "--storage-procs",
            "2",
            "--log",
            logs.resolve("mooncake.log").toString());
    try {
      targets.add(
          AgentTarget.start(
              "mooncake",
              Target.Family.PEER,
              "Mooncake Store "
                  + version
                  + " (mooncake_master, 2 storage processes, clients with no segment of their own, protocol tcp,"
                  + " put_from/get_into and batch_put_from/batch_get_into on registered buffers), one worker process per"
                  + " client, in a private network namespace",
              command,
              Map.of(),
              logs.resolve("mooncake-agent.log"),
              Map.of()));
    } catch (IOException e) {
      skip("mooncake", e.getMessage());
    }
  }

  private Path agentScript() {
    return settings.home().resolve("data-plane/bench/python/agent.py");
  }

  private void skip(String target, String why) {
    skipped.put(target, why);
  }

  /**
   * An untimed round: every workload on every target with the measured phases, so that the JIT has
   * compiled the paths of every process before round 1. With a short pass over a few workloads the
   * pool's JVMs were still compiling through round 1 (jstat: the master's C2 time grew from 2 to 16
   * s over the first minute, then stayed), which made round 1 kvpool's slowest in every
   * single-value row.
   */
  private void warmUp(List<Workload> workloads) throws Exception {
    out.println("warm-up round (not measured)");
    for (Workload w : workloads) {
      for (Target t : targets) {
        if (t.supports(w)) {
          runs.run(t, w, 0);
        }
      }
    }
  }

  /** Round r starts at a different target, so no target always runs right after the same one. */
  private List<Target> rotated(int round) {
    List<Target> order = new ArrayList<>();
    int n = targets.size();
    for (int i = 0; i < n; i++) {
      order.add(targets.get((i + round - 1) % n));
    }
    return order;
  }

  private String loadAverage() {
    try {
      String[] f = Machine.read("/proc/loadavg").split("\\s+");
      load.add(
          new double[] {
            Double.parseDouble(f[0]), Double.parseDouble(f[1]), Double.parseDouble(f[2])
          });
      return f[0] + " " + f[1] + " " + f[2];
    } catch (RuntimeException e) {
      return "unknown";
    }
  }

  private void charts(Path dir) {
    Path python = settings.venv().resolve("bin/python");
    Path script = settings.home().resolve("data-plane/bench/python/report.py");
    try {
      Process p =
          new ProcessBuilder(
                  python.toString(),
                  script.toString(),
                  dir.resolve("benchmarks/results.json").toString(),
                  dir.resolve("benchmarks").toString())
              .inheritIO()
              .start();
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        out.println(
            "charts: report.py failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + ")");
      }
    } catch (IOException | InterruptedException e) {
      out.println("charts: cannot run " + script + " with " + python + ": " + e.getMessage());
    }
  }

  private void closeAll() {
    for (Target t : targets) {
      try {
        t.close();
      } catch (RuntimeException e) {
        out.println("closing " + t.name() + ": " + e.getMessage());
      }
    }
    servers.forEach(PeerServer::close);
  }

  static Path which(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, program);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    for (String dir : List.of("/usr/sbin", "/sbin", "/usr/bin")) {
      Path p = Path.of(dir, program);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  private static String version(Path binary, String flag) {
    try {
      Process p = new ProcessBuilder(binary.toString(), flag).redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor(5, TimeUnit.SECONDS);
      return s.lines().findFirst().orElse(binary.getFileName().toString());
    } catch (IOException | InterruptedException e) {
      return binary.getFileName().toString();
    }
  }

  /** The target of a second pool whose nodes serve gets with sendfile (when it runs). */
  public static final String SENDFILE = "kvpool-sendfile";

  /**
   * The target of a pool of one storage node (when it runs): one server process, as memcached's, on
   * this machine's cores.
   */
  public static final String ONE_NODE = "kvpool-one-node";

  /** What each pool besides the suite's own is, by its target's name. */
  private static final Map<String, String> POOL_DESCRIPTIONS =
      Map.of(
          SENDFILE,
          "as kvpool, on a second pool of the same shape whose storage nodes keep their segments in"
              + " memory files on tmpfs and send get replies of 256 KiB or more with sendfile from them"
              + " (--read-serving sendfile, off by default)",
          ONE_NODE,
          "as kvpool, on a pool of one master and one storage node (the suite's pool has two): one"
              + " server process holds every value, as memcached's one process does");

  /** The kvpool Java-client targets: the default client and its variants. */
  enum KvPoolVariant {
    KVPOOL(
        "kvpool",
        1,
        true,
        "kvpool through its Java client, R=1 (one KvPoolClient per client thread)",
        b -> b),
    KVPOOL_R2(
        "kvpool-r2",
        2,
        true,
        "kvpool through its Java client, R=2 (every value on two storage nodes)",
        b -> b),
    KVPOOL_NO_CACHE(
        "kvpool-nocache",
        1,
        true,
        "as kvpool, without the location cache: every get asks the master"
            + " for the replica list first (the protocol 2.0 get)",
        b -> b.locationCacheEntries(0)),
    KVPOOL_NO_BATCH(
        "kvpool-nobatch",
        1,
        false,
        "as kvpool, with a batch's reads and writes sent to each node as"
            + " pipelined READs and WRITEs (protocol 2.0) instead of one READ_BATCH / WRITE_BATCH (batches only)",
        b -> b.batchRequests(false)),
    KVPOOL_EXTENTS(
        "kvpool-extents",
        1,
        true,
        "as kvpool, with each put of a value up to 256 KiB written into an extent the master granted"
            + " ahead (protocol 2.4: one exchange, with the storage node only; single values only)",
        b -> b.extents(true));

    final String target;
    final int replicas;
    final boolean singleValues;
    final String description;
    final UnaryOperator<ClientConfig.Builder> settings;

    KvPoolVariant(
        String target,
        int replicas,
        boolean singleValues,
        String description,
        UnaryOperator<ClientConfig.Builder> settings) {
      this.target = target;
      this.replicas = replicas;
      this.singleValues = singleValues;
      this.description = description;
      this.settings = settings;
    }
  }
}
