package io.kvpool.bench.command;

import io.kvpool.bench.compare.CompareSettings;
import io.kvpool.bench.compare.CompareSuite;
import io.kvpool.bench.compare.DiskTierComparison;
import io.kvpool.bench.compare.EventsComparison;
import io.kvpool.bench.compare.QuickBench;
import io.kvpool.cli.Checks;
import io.kvpool.cli.CommandFailedException;
import io.kvpool.cli.Converters;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.cli.StatusTable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvpool bench compare}: the benchmark suite against the peers, writing docs/benchmarks.md
 * and its charts.
 */
@Command(
    name = "compare",
    description = {
      "Compare kvpool with its peers (memcached, Redis, Mooncake Store over TCP) and the machine's limits"
          + " (loopback stream, request/response NIO, memcpy) on loopback: single values of 64 KiB, 1 MiB, 4 MiB from"
          + " 1, 4 and 8 clients, inference-shaped batches, and the master's metadata throughput; targets interleaved"
          + " round by round. Installs what it needs first (Debian packages, a Python environment), then writes"
          + " docs/benchmarks.md, docs/benchmarks/results.json and the charts.",
      "Run it from the kvpool checkout (./kvpool bench compare); it takes about 10-15 minutes."
    })
final class CompareCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "3",
      description = "Rounds, 1..20; figures are medians over them (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--working-set",
      paramLabel = "SIZE",
      defaultValue = "256MiB",
      converter = Converters.Size.class,
      description =
          "Bytes each target stores per workload, more than the CPU caches (default: ${DEFAULT-VALUE}).")
  long workingSet;

  @Option(
      names = "--get-seconds",
      paramLabel = "S",
      defaultValue = "1.0",
      description = "Seconds of each get phase (default: ${DEFAULT-VALUE}).")
  double getSeconds;

  @Option(
      names = "--put-max-seconds",
      paramLabel = "S",
      defaultValue = "1.5",
      description =
          "Longest a put phase may take before it stops short of the working set (default:"
              + " ${DEFAULT-VALUE}).")
  double putMaxSeconds;

  @Option(
      names = "--full-matrix",
      description =
          "Every value size with every client count (9 single-value" + " workloads instead of 5).")
  boolean fullMatrix;

  @Option(
      names = "--targets",
      paramLabel = "NAME[,NAME...]",
      split = ",",
      description =
          "Only these targets (default: all): loopback-stream, memcpy, nio-rr, kvpool, kvpool-r2,"
              + " kvpool-nocache, kvpool-nobatch, kvpool-extents, kvpool-sendfile, kvpool-one-node, kvpool-py, redis, memcached, mooncake, kvpool-master.")
  List<String> targets;

  @Option(
      names = "--workloads",
      paramLabel = "NAME[,NAME...]",
      split = ",",
      defaultValue = STANDARD,
      description =
          "Which workloads (default: ${DEFAULT-VALUE}): "
              + STANDARD
              + " (the values, batches and metadata rows above), "
              + DiskTierComparison.WORKLOAD
              + " (a working set 3x the pool's memory on pools with and without disk tiers, the disk's fio"
              + " O_DIRECT read limit, du of the tiers through a fill to 5x memory; writes"
              + " benchmarks-disk-3x.md), "
              + EventsComparison.WORKLOAD
              + " (put ops/s of two pools of the same shape, one publishing KV events to a subscriber"
              + " that reads every batch, one without events, taking turns round by round; writes"
              + " benchmarks-events.md).")
  List<String> workloads;

  @Option(
      names = "--disk-read-threads",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Client threads of the disk-3x workload's parallel disk-read passes, 1..64, and fio's jobs"
              + " beside them (default: 4, with --quick 2).")
  int diskReadThreads;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description =
          "Folder of the report (default: docs/ of the checkout; with --quick a temporary folder).")
  Path out;

  @Option(
      names = "--venv",
      paramLabel = "DIR",
      description =
          "Python environment of the Python targets and the charts (default:"
              + " ~/.cache/kvpool/bench-venv).")
  Path venv;

  @Option(
      names = "--no-install",
      description =
          "Do not install missing packages (the targets that lack them are"
              + " skipped, and the report says why).")
  boolean noInstall;

  @Option(names = "--no-warm-up", description = "Skip the untimed warm-up round.")
  boolean noWarmUp;

  @Option(
      names = "--quick",
      description = "A smoke run: 1 round, 32 MiB working set, 0.2 s phases.")
  boolean quick;

  private static final String STANDARD = "standard";

  private final PrintStream output;

  CompareCommand(PrintStream output) {
    this.output = output;
  }

  @Override
  public Integer call() throws Exception {
    Checks.range(spec, "--rounds", rounds, 1, 20);
    if (diskReadThreads != 0) {
      Checks.range(spec, "--disk-read-threads", diskReadThreads, 1, 64);
    }
    Path home = home();
    Path environment =
        venv != null
            ? venv
            : Path.of(System.getProperty("user.home"), ".cache", "kvpool", "bench-venv");
    if (quick) {
      rounds = 1;
      workingSet = 32L << 20;
      getSeconds = 0.2;
      putMaxSeconds = 0.5;
    }
    Path report =
        out != null
            ? out
            : quick ? Files.createTempDirectory("kvpool-compare-report") : home.resolve("docs");
    if (!noInstall) {
      install(home, environment);
    }
    Set<String> chosen = new LinkedHashSet<>(workloads);
    for (String w : chosen) {
      if (!w.equals(STANDARD)
          && !w.equals(DiskTierComparison.WORKLOAD)
          && !w.equals(EventsComparison.WORKLOAD)) {
        throw Checks.usage(
            spec,
            "unknown workload '"
                + w
                + "' in --workloads (expected "
                + STANDARD
                + ", "
                + DiskTierComparison.WORKLOAD
                + " or "
                + EventsComparison.WORKLOAD
                + ")");
      }
    }
    if (chosen.contains(DiskTierComparison.WORKLOAD)) {
      new DiskTierComparison(
              DiskTierComparison.Settings.of(
                  quick,
                  diskReadThreads,
                  report,
                  environment,
                  home.resolve("data-plane/bench/python/agent.py")),
              output)
          .run();
    }
    if (chosen.contains(EventsComparison.WORKLOAD)) {
      new EventsComparison(EventsComparison.Settings.of(quick, report), output).run();
    }
    if (!chosen.contains(STANDARD)) {
      return 0;
    }
    Set<String> only = targets == null ? Set.of() : new LinkedHashSet<>(targets);
    CompareSettings settings =
        CompareSettings.of(
            rounds,
            workingSet,
            putMaxSeconds,
            getSeconds,
            fullMatrix,
            only,
            home,
            environment,
            report,
            !noInstall,
            !noWarmUp && !quick);
    long perNode = settings.storageNodeBytes();
    LocalPoolConfig config = pool("compare", 2, perNode).build();
    output.println(
        "kvpool bench compare: a local pool of 2 storage nodes x "
            + StatusTable.bytes(perNode)
            + " (logs in "
            + config.logDir()
            + ")");
    Path memoryRoot = null;
    List<LocalPool> otherPools = new ArrayList<>();
    try (LocalPool pool = config.start()) {
      List<QuickBench.Pool> others = new ArrayList<>();
      if (settings.wants(CompareSuite.SENDFILE)) {
        // a second pool for the target kvpool-sendfile: its nodes serve gets with sendfile, which
        // sends from memory files, so their segments live on tmpfs (the folder goes with the run)
        memoryRoot = Files.createTempDirectory(Path.of("/dev/shm"), "kvpool-compare-");
        long sendfilePerNode = settings.sendfileNodeBytes();
        LocalPoolConfig sendfileConfig =
            pool("compare-sendfile", 2, sendfilePerNode)
                .memoryDirs(memoryRoot)
                .storageOption("--read-serving", "sendfile")
                .build();
        output.println(
            "and for "
                + CompareSuite.SENDFILE
                + " a local pool of 2 storage nodes x "
                + StatusTable.bytes(sendfilePerNode)
                + " serving gets with sendfile from memory files in "
                + memoryRoot
                + " (logs in "
                + sendfileConfig.logDir()
                + ")");
        others.add(start(CompareSuite.SENDFILE, sendfileConfig, otherPools));
      }
      if (settings.wants(CompareSuite.ONE_NODE)) {
        long oneNodeBytes = settings.oneNodeBytes();
        LocalPoolConfig oneNodeConfig = pool("compare-one-node", 1, oneNodeBytes).build();
        output.println(
            "and for "
                + CompareSuite.ONE_NODE
                + " a local pool of 1 storage node x "
                + StatusTable.bytes(oneNodeBytes)
                + " (logs in "
                + oneNodeConfig.logDir()
                + ")");
        others.add(start(CompareSuite.ONE_NODE, oneNodeConfig, otherPools));
      }
      new CompareSuite(settings, output).run(pool.masterAddress(), processes(pool), others);
    } finally {
      otherPools.forEach(LocalPool::close);
      if (memoryRoot != null) {
        BenchCommand.deleteTree(memoryRoot);
      }
    }
    return 0;
  }

  /**
   * Starts the pool of the target {@code target}, adding it to {@code started} (whoever made that
   * list closes them).
   */
  private static QuickBench.Pool start(
      String target, LocalPoolConfig config, List<LocalPool> started) {
    LocalPool pool = config.start();
    started.add(pool);
    return new QuickBench.Pool(target, pool.masterAddress(), processes(pool));
  }

  /** A local pool of {@code nodes} storage nodes of {@code bytesPerNode} each. */
  private static LocalPoolConfig.Builder pool(String poolId, int nodes, long bytesPerNode) {
    return LocalPool.builder()
        .poolId(poolId)
        .storageNodes(nodes)
        .memoryPerNode(Long.toString(bytesPerNode));
  }

  /** A local pool's processes by role, whose CPU time the suite reads. */
  private static Map<String, List<ProcessHandle>> processes(LocalPool pool) {
    Map<String, List<ProcessHandle>> processes = new LinkedHashMap<>();
    processes.put("master", List.of(pool.master().handle()));
    processes.put("storage", pool.storageNodes().stream().map(n -> n.process().handle()).toList());
    return processes;
  }

  /** The kvpool checkout: the agent, the report script and the Python client live there. */
  private Path home() {
    String declared = System.getenv("KVPOOL_HOME");
    if (declared != null
        && Files.isRegularFile(Path.of(declared, "data-plane/bench/python/agent.py"))) {
      return Path.of(declared).toAbsolutePath();
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("data-plane/bench/python/agent.py"))) {
        return p;
      }
    }
    throw Checks.usage(
        spec,
        "run it from inside the kvpool checkout (data-plane/bench/python/agent.py not found from "
            + Path.of("").toAbsolutePath()
            + "), or set KVPOOL_HOME");
  }

  /** Runs the setup script: Debian packages of the peers, then the Python environment. */
  private void install(Path home, Path environment) throws IOException, InterruptedException {
    Path script = home.resolve("data-plane/bench/python/setup.sh");
    output.println("setup: " + script + " " + environment);
    Process p =
        new ProcessBuilder(Arrays.asList("bash", script.toString(), environment.toString()))
            .redirectErrorStream(true)
            .start();
    p.getInputStream().transferTo(output);
    if (!p.waitFor(15, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new CommandFailedException("setup did not finish within 15 minutes");
    }
    if (p.exitValue() != 0) {
      output.println(
          "setup exited with "
              + p.exitValue()
              + "; targets that lack what it installs are skipped");
    }
  }
}
