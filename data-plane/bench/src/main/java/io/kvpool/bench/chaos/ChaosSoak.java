package io.kvpool.bench.chaos;

import io.kvpool.admin.MasterStatus;
import io.kvpool.bench.BenchmarkFailedException;
import io.kvpool.bench.ElectionApiServer;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.cli.PoolProcessException;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * {@code kvpool bench chaos}: a local pool (masters electing on a real API server's Lease, storage
 * nodes with memory files on tmpfs, R=2) under a steady mixed load while a seeded schedule kills,
 * freezes and restarts its processes, cuts connections, takes servers' body budgets and makes the
 * pool evict, one fault at a time, each healed and the pool settled before the next. At the end:
 * every key checked against the {@link Ledger}, the leader's gauges against a full scan, every
 * process's RSS and descriptors against their baseline, every body budget whole, every server
 * answering. Any violation makes the run fail (exit code 1) after the summary.
 */
public final class ChaosSoak {
  private static final String NAMESPACE_ON_TEST_SERVER = "kvpool-chaos";
  private static final String POD_PREFIX = "chaos-master";

  /**
   * Stalled frames are dropped after this (every server), so a fault's silent connections end
   * within the run.
   */
  static final Duration FRAME_TIMEOUT = Duration.ofSeconds(10);

  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(10);

  /**
   * Long enough for a failover and its recovery: an operation fails only when the pool is really
   * stuck.
   */
  private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(60);

  private static final Duration BUDGET_WAIT = Duration.ofSeconds(30);
  private static final Duration PROGRESS_EVERY = Duration.ofSeconds(60);

  /**
   * Fixed heaps, touched at start: the child JVMs' RSS then does not grow with the heap's own
   * sizing, so growth means something kept memory. 512 MiB as the pool's default maximum: a
   * server's 256 MiB body budget lives in its heap. Serial GC as the pool's default. Direct memory
   * capped low (pods cap it too, higher): every connection's two 8 KiB staging buffers are direct
   * and go back only when a GC finds them unreachable, which a large, quiet heap may not run for
   * long, and glibc keeps the pages they took. A node's loss makes the master open a connection per
   * repair copy, and the source one to the target: thousands within seconds; with the JVM's default
   * cap (the heap size) native memory tracking showed direct buffers peaking at 36-38 MB in a
   * 2-minute soak, plus C2's compiler arenas (peak 16-25 MB), read as RSS growth. 16 MiB is about
   * three times what a soak's live connections hold; reaching it makes the JVM collect the closed
   * ones'. (Reusing connections for repair copies is the fix in the product.)
   */
  static final List<String> CHILD_JVM =
      List.of(
          "-Xms512m",
          "-Xmx512m",
          "-XX:+AlwaysPreTouch",
          "-XX:+UseSerialGC",
          "-XX:MaxDirectMemorySize=16m",
          "-XX:+ExitOnOutOfMemoryError");

  /** What to run; see {@code ChaosCommand} for each option. */
  public record Settings(
      Optional<Path> kubeconfig,
      String namespace,
      Duration duration,
      Duration warmUp,
      long seed,
      int masters,
      int storageNodes,
      long memoryPerNode,
      long diskPerNode,
      int valueSize,
      int replicas,
      boolean extents,
      int workers,
      double rate,
      int targetObjects,
      int maxBatch,
      Set<FaultKind> faults,
      int minFaults,
      Duration pauseMin,
      Duration pauseMax,
      Duration electionLease,
      Duration nodeTtl,
      Duration settleTimeout) {}

  private final Settings settings;
  private final Journal journal;
  private final PrintStream out;
  private final Map<FaultKind, Integer> injected = new EnumMap<>(FaultKind.class);
  private final List<Duration> settleTimes = new ArrayList<>();
  private final List<EvictionBurst.Outcome> bursts = new ArrayList<>();

  /**
   * Files of the disk tiers: small, so that a tier of a few hundred MiB reclaims whole files as a
   * long soak fills it.
   */
  private static final long DISK_FILE_BYTES = 16L << 20;

  /** Longer than the servers keep idle copy connections (5 s) plus their sweep (2.5 s). */
  private static final Duration REUSED_CONNECTIONS_CLOSED = Duration.ofSeconds(8);

  private final ResourceTracker resources;
  private final BudgetTracker budgets = new BudgetTracker();
  private final AtomicBoolean burstRunning = new AtomicBoolean();
  private final AtomicBoolean masterFaultRunning = new AtomicBoolean();
  private final Set<String> budgetShort = new java.util.HashSet<>();
  private String aborted;

  /** Set once the pool failed to settle: later waits are short, the run is failing anyway. */
  private boolean stuck;

  private ChaosSoak(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
    this.journal = new Journal(out);
    this.resources = new ResourceTracker(settings.warmUp());
  }

  /**
   * Runs the soak and prints its log and summary; returns the summary (its violations decide the
   * exit code).
   */
  public static ChaosReport run(Settings settings, PrintStream out) {
    return new ChaosSoak(settings, out).run();
  }

  private ChaosReport run() {
    journal.log(
        String.format(
            Locale.ROOT,
            "kvpool bench chaos: seed %s (again: --seed %s), %d min, %d masters, %d "
                + "storage nodes x %d MiB%s, R=%d%s, %d workers at %.0f ops/s, ~%d live objects of ~%d KiB; faults: %s",
            seedText(settings.seed()),
            seedText(settings.seed()),
            settings.duration().toMinutes(),
            settings.masters(),
            settings.storageNodes(),
            settings.memoryPerNode() >> 20,
            settings.diskPerNode() > 0
                ? " and a " + (settings.diskPerNode() >> 20) + " MiB disk tier"
                : "",
            settings.replicas(),
            settings.extents() ? " (single puts through extents)" : "",
            settings.workers(),
            settings.rate(),
            settings.targetObjects(),
            settings.valueSize() >> 10,
            String.join(",", settings.faults().stream().map(FaultKind::cliName).toList())));
    Path memory = memoryRoot();
    Path disks = settings.diskPerNode() > 0 ? diskRoot() : null;
    try {
      if (settings.masters() == 1) {
        return start(null, null, memory, disks); // a sole master needs no election
      }
      if (settings.kubeconfig().isEmpty()) {
        journal.log(
            "starting the test kube-apiserver for the election (test-kube; a minute or more on a busy "
                + "machine)");
      }
      try (ElectionApiServer api =
          settings
              .kubeconfig()
              .map(ElectionApiServer::fromKubeconfig)
              .orElseGet(ElectionApiServer::startTestServer)) {
        String namespace =
            settings.kubeconfig().isPresent() ? settings.namespace() : NAMESPACE_ON_TEST_SERVER;
        String lease = "kvpool-chaos-" + Long.toHexString(settings.seed() >>> 16);
        LocalPoolConfig.Election election =
            api.election(
                namespace, lease, settings.electionLease(), POD_PREFIX, settings.masters());
        return start(
            election,
            "masters elect on Lease " + namespace + "/" + lease + " of " + api.description(),
            memory,
            disks);
      }
    } finally {
      deleteTree(memory);
      if (disks != null) {
        deleteTree(disks);
      }
    }
  }

  private ChaosReport start(
      LocalPoolConfig.Election election, String electionLine, Path memory, Path disks) {
    LocalPoolConfig.Builder builder =
        LocalPool.builder()
            .poolId("chaos")
            .masters(settings.masters(), election)
            .storageNodes(settings.storageNodes())
            .memoryPerNode(Long.toString(settings.memoryPerNode()))
            .nodeTtl(settings.nodeTtl().toMillis() + "ms")
            .masterOption("--frame-timeout", FRAME_TIMEOUT.toMillis() + "ms")
            .storageOption("--frame-timeout", FRAME_TIMEOUT.toMillis() + "ms")
            .memoryDirs(memory)
            .jvmOptions(CHILD_JVM);
    if (disks != null) {
      builder
          .storageOption("--disk-size", Long.toString(settings.diskPerNode()))
          .storageOption("--disk-dir", disks.toString())
          .storageOption("--disk-file-size", Long.toString(DISK_FILE_BYTES));
    }
    LocalPoolConfig config = builder.build();
    journal.log(
        (electionLine == null ? "a sole master, no election" : electionLine)
            + "; logs in "
            + config.logDir()
            + "; memory files in "
            + memory
            + (disks == null ? "" : "; disk tiers in " + disks));
    try (LocalPool pool = config.start()) {
      return soak(new ChaosPool(pool, settings.storageNodes()), config.logDir());
    } catch (PoolProcessException e) {
      throw new BenchmarkFailedException(e.summary() + " (logs in " + config.logDir() + ")", e);
    } catch (ChaosPool.NotSettledException e) {
      throw new BenchmarkFailedException(e.getMessage() + " (logs in " + config.logDir() + ")", e);
    }
  }

  private ChaosReport soak(ChaosPool pool, Path logDir) {
    long start = System.nanoTime();
    long end = start + settings.duration().toNanos();
    ChaosPool.Settled settled =
        pool.awaitSettled(settings.settleTimeout()); // a pool that never settles: no soak
    Ledger ledger = new Ledger(journal::step);
    KeyValues values = new KeyValues(settings.seed());
    Workload workload =
        new Workload(
            new Workload.Settings(
                settings.workers(),
                settings.rate(),
                settings.valueSize(),
                settings.replicas(),
                settings.targetObjects(),
                settings.maxBatch()),
            ledger,
            values,
            journal,
            settings.seed());
    PrometheusRegistry clientMetrics = new PrometheusRegistry();
    ClientConfig.Builder clients =
        ClientConfig.builder()
            .master(pool.pool().masterAddress())
            .timeout(CLIENT_TIMEOUT)
            .operationTimeout(OPERATION_TIMEOUT)
            .extents(settings.extents())
            .metrics(clientMetrics);
    GaugeCheck gauges = null;
    Verifier.Result verified = null;
    List<ResourceTracker.Judgement> judged = List.of();
    try (KvPoolClient control = KvPoolClient.connect(clients.clientId("chaos-control").build());
        LeaderMonitor monitor =
            new LeaderMonitor(pool, journal, burstRunning::get, masterFaultRunning::get)) {
      EvictionBurst evictions =
          new EvictionBurst(
              pool,
              ledger,
              workload,
              values,
              journal,
              settings.replicas(),
              settings.valueSize(),
              OPERATION_TIMEOUT.multipliedBy(2));
      FaultInjector injector =
          new FaultInjector(
              new FaultInjector.Context(
                  pool,
                  ledger,
                  values,
                  workload,
                  budgets,
                  evictions,
                  () -> KvPoolClient.connect(clients.clientId("chaos-abandoned").build()),
                  control,
                  settings.replicas(),
                  settings.nodeTtl(),
                  FRAME_TIMEOUT));
      monitor.start();
      workload.start(clients);
      journal.log("load started; warming up for " + FaultInjector.seconds(settings.warmUp()));
      Pause.millis(
          Math.min(
              settings.warmUp().toMillis(), Math.max(0, (end - System.nanoTime()) / 1_000_000)));
      settled = settle(pool, "after the warm-up");
      if (settled == null) {
        aborted = "the pool did not settle after the warm-up";
      }
      sampleResources(pool, true);
      readBudgets(pool);
      journal.log(
          "warm: "
              + progress(workload, ledger)
              + "; baselines taken (RSS, descriptors, body budgets)");
      FaultSchedule schedule =
          new FaultSchedule(
              settings.seed(),
              new FaultSchedule.Shape(
                  settings.storageNodes(),
                  settings.masters(),
                  settings.nodeTtl(),
                  settings.electionLease(),
                  settings.pauseMin(),
                  settings.pauseMax()),
              settings.faults());
      long lastProgress = System.nanoTime();
      while (aborted == null) {
        Fault fault = schedule.next();
        boolean owed =
            injected.values().stream().mapToInt(Integer::intValue).sum() < settings.minFaults();
        long pause =
            owed
                ? fault.pauseBefore().toMillis()
                : Math.min(fault.pauseBefore().toMillis(), (end - System.nanoTime()) / 1_000_000);
        if (pause > 0) {
          Pause.millis(pause); // steady load between faults, as the schedule drew it
        }
        if (System.nanoTime() - end > 0 && !owed) {
          break;
        }
        settled = step(fault, settled, pool, injector, monitor);
        if (System.nanoTime() - lastProgress > PROGRESS_EVERY.toNanos()) {
          journal.log("progress: " + progress(workload, ledger));
          lastProgress = System.nanoTime();
        }
      }
      journal.step("final check");
      journal.log(
          "faults over"
              + (aborted == null ? "" : " (stopped early: " + aborted + ")")
              + "; "
              + progress(workload, ledger));
      settled = settleOrRecord(pool, "at the end");
      // connections kept for reuse after the last repairs (5 s in masters and nodes) close first
      Pause.millis(REUSED_CONNECTIONS_CLOSED.toMillis());
      sampleResources(pool, false);
      checkBudgets(pool, "at the end");
      judged = resources.judge(settings.warmUp().toNanos());
      judged.stream()
          .filter(ResourceTracker.Judgement::flagged)
          .forEach(j -> journal.violation("resources grew", describe(j)));
      if (!workload.stop(OPERATION_TIMEOUT.multipliedBy(2))) {
        journal.violation(
            "load did not stop",
            "a worker was still in a call "
                + 2 * OPERATION_TIMEOUT.toSeconds()
                + " s after the load was told to stop");
      }
      journal.log("load stopped: " + progress(workload, ledger));
      settled = settleOrRecord(pool, "after the load stopped");
      awaitNoPending(pool);
      verified = new Verifier(ledger, values, Duration.ofSeconds(60)).verify(control);
      report(verified, ledger);
      settled = settleOrRecord(pool, "after the final check");
      if (settled != null) {
        gauges =
            GaugeCheck.run(
                pool.admin(settled.leader().adminAddress()), "master-" + settled.leader().index());
        gauges.mismatches().forEach(m -> journal.violation("gauges differ from a full scan", m));
        if (!gauges.available()) {
          journal.log("gauges vs scan: " + gauges.note());
        }
      }
      monitor.sample();
      return new ChaosReport(
          settings,
          Duration.ofNanos(System.nanoTime() - start),
          workload.counts(),
          settings.extents() ? ExtentPaths.of(clientMetrics) : null,
          workload.lastErrors(),
          new EnumMap<>(injected),
          List.copyOf(settleTimes),
          List.copyOf(bursts),
          monitor.leaderChanges(),
          monitor.unplannedLeaderChanges(),
          monitor.evictions(),
          monitor.evictionsOutsideBursts(),
          monitor.objectsLost(),
          verified,
          gauges,
          judged,
          resourceRestarts(judged),
          resourceRoleChanges(judged),
          budgets.readings(),
          budgets.unavailable(),
          journal.violationCounts(),
          journal.violationDetails(),
          aborted,
          logDir);
    } finally {
      workload.stop(Duration.ofSeconds(1));
    }
  }

  /** One fault: injected, healed, the pool settled, budgets and resources checked. */
  private ChaosPool.Settled step(
      Fault fault,
      ChaosPool.Settled settled,
      ChaosPool pool,
      FaultInjector injector,
      LeaderMonitor monitor) {
    journal.step(fault.describe());
    journal.log(fault.describe() + " ...");
    masterFaultRunning.set(fault.kind().hitsMaster());
    burstRunning.set(fault.kind() == FaultKind.EVICTION_BURST);
    monitor.sample();
    // the leader now, should leadership have moved during the pause (a missed renewal)
    Optional<LocalPool.MasterProcess> leader = pool.leader();
    if (leader.isPresent() && leader.get().index() != settled.leader().index()) {
      settled = new ChaosPool.Settled(leader.get(), settled.status(), settled.took());
    }
    long t0 = System.nanoTime();
    FaultInjector.Done done;
    try {
      done = injector.inject(fault, settled);
    } catch (RuntimeException e) {
      journal.violation("fault could not be healed", fault.describe() + ": " + e.getMessage());
      aborted = fault.describe() + " failed";
      masterFaultRunning.set(false);
      return settled;
    } finally {
      burstRunning.set(false);
    }
    monitor.sample();
    injected.merge(fault.kind(), 1, Integer::sum);
    if (done.burst() != null) {
      bursts.add(done.burst());
    }
    long healed = System.nanoTime();
    ChaosPool.Settled now;
    try {
      now = settle(pool, fault.describe());
      // the leader the pool settled on is this fault's doing: seen before the fault is over, not
      // by the monitor's next look
      monitor.sample();
    } finally {
      masterFaultRunning.set(false);
    }
    if (now == null) {
      journal.log(fault.describe() + ": " + done.line());
      aborted = "the pool did not settle after " + fault.describe();
      return settled;
    }
    settled = now;
    settleTimes.add(settled.took());
    journal.log(
        fault.describe()
            + ": "
            + done.line()
            + "; settled in "
            + FaultInjector.seconds(healed)
            + " (fault "
            + FaultInjector.seconds(Duration.ofNanos(healed - t0))
            + ")");
    journal.step("steady load after " + fault.describe());
    checkBudgets(pool, "after " + fault.describe());
    sampleResources(pool, false);
    return settled;
  }

  private ChaosPool.Settled settleOrRecord(ChaosPool pool, String when) {
    return settle(pool, when);
  }

  /**
   * Waits for the pool to settle; a process that died on its own is a violation, started again (so
   * that the rest of the soak still means something) before waiting again. Null (and a violation)
   * if it does not settle.
   */
  private ChaosPool.Settled settle(ChaosPool pool, String when) {
    for (int restarts = 0; ; restarts++) {
      try {
        return pool.awaitSettled(stuck ? Duration.ofSeconds(30) : settings.settleTimeout());
      } catch (ChaosPool.ProcessDiedException e) {
        journal.violation("process died", when + ": " + e.getMessage());
        if (restarts >= 3) {
          return null;
        }
        try {
          pool.restart(e.proc());
          journal.log("started " + e.proc().name() + " again to go on");
        } catch (RuntimeException again) {
          journal.violation(
              "process died",
              when + ": " + e.proc().name() + " does not start again: " + again.getMessage());
          return null;
        }
      } catch (ChaosPool.NotSettledException e) {
        journal.violation("pool did not settle", when + ": " + e.getMessage());
        stuck = true;
        return null;
      }
    }
  }

  /**
   * Waits (bounded) until the leader holds no pending put: the load's failed puts expire with their
   * grants.
   */
  private void awaitNoPending(ChaosPool pool) {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    long pending = -1;
    while (System.nanoTime() - deadline < 0) {
      Optional<MasterStatus> s = pool.leader().flatMap(pool::status);
      pending = s.map(st -> st.counters().pendingObjects()).orElse(-1L);
      if (pending == 0) {
        return;
      }
      Pause.millis(500); // polling the leader's gauge
    }
    journal.log("the leader still holds " + pending + " pending puts 90 s after the load stopped");
  }

  private void report(Verifier.Result r, Ledger ledger) {
    r.lost()
        .forEach(
            k ->
                journal.violation(
                    "acknowledged object lost", k + ": not found; " + history(ledger, k)));
    r.wrong()
        .forEach(
            k ->
                journal.violation(
                    "object read back with other bytes", k + "; " + history(ledger, k)));
    r.resurrected()
        .forEach(
            k -> journal.violation("removed object readable again", k + "; " + history(ledger, k)));
    if (!r.unreadable().isEmpty()) {
      journal.violation(
          "objects unreadable at the end",
          r.unreadable().size()
              + " keys (e.g. "
              + r.unreadable().get(0)
              + "): no batch read of them succeeded within 60 s; last error: "
              + r.lastError());
    }
  }

  /**
   * When a key last changed in the ledger, e.g. {@code removed at +101.3s during step 3:
   * kill-leader ...}.
   */
  private String history(Ledger ledger, String key) {
    Ledger.Entry e = ledger.entry(key);
    String what =
        switch (e.state()) {
          case ACKNOWLEDGED -> "acknowledged";
          case REMOVED -> "removed";
          case UNCERTAIN -> "put or remove failed";
          case WRITING -> "put under way";
        };
    return what + " at " + journal.stamp(e.atNanos()) + " during " + e.during();
  }

  private void sampleResources(ChaosPool pool, boolean warmUpOver) {
    long warm = settings.warmUp().toNanos();
    Optional<String> leader = pool.leader().map(m -> "master-" + m.index());
    for (ChaosPool.Proc p : pool.processes()) {
      if (!p.process().isAlive()) {
        continue;
      }
      Duration age =
          p.process()
              .handle()
              .info()
              .startInstant()
              .map(s -> Duration.between(s, java.time.Instant.now()))
              .orElse(Duration.ZERO);
      resources.sample(
          p.name(), p.process().pid(), role(p.name(), leader), warmUpOver || age.toNanos() >= warm);
    }
  }

  private void readBudgets(ChaosPool pool) {
    for (ChaosPool.Proc p : pool.processes()) {
      try {
        budgets.record(p.name(), p.process().pid(), pool.admin(p.adminAddress()).text("/metrics"));
      } catch (AdminApi.AdminApiException e) {
        // not answering now: the settle check reports servers that do not answer
      }
    }
  }

  /**
   * Every server's body budget must come back whole once a fault healed: polled (the load's own
   * large bodies come and go) until each reads its whole budget, or {@link #BUDGET_WAIT} passed; a
   * shortfall then is a leak, reported once per process incarnation.
   */
  private void checkBudgets(ChaosPool pool, String when) {
    long deadline = System.nanoTime() + BUDGET_WAIT.toNanos();
    while (true) {
      readBudgets(pool);
      List<BudgetTracker.Reading> short_ =
          budgets.readings().values().stream().filter(r -> r.missing() > 0).toList();
      if (short_.isEmpty() || budgets.unavailable()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        for (BudgetTracker.Reading r : short_) {
          if (budgetShort.add(r.name() + "#" + r.pid())) {
            journal.violation(
                "body budget not returned",
                String.format(
                    Locale.ROOT,
                    "%s (pid %d) %s: %.1f of %.1f" + " MiB available %d s later",
                    r.name(),
                    r.pid(),
                    when,
                    r.last() / 1048576.0,
                    r.whole() / 1048576.0,
                    BUDGET_WAIT.toSeconds()));
          }
        }
        return;
      }
      Pause.millis(500); // polling the servers' budget gauges
    }
  }

  /**
   * A process's role for the resource baselines: "leader" or "standby" for a master (null while no
   * master leads: the last known role stands), "node" for a storage node.
   */
  static String role(String name, Optional<String> leader) {
    if (!name.startsWith("master-")) {
      return "node";
    }
    return leader.map(l -> l.equals(name) ? "leader" : "standby").orElse(null);
  }

  private Map<String, Integer> resourceRestarts(List<ResourceTracker.Judgement> judged) {
    Map<String, Integer> out = new java.util.LinkedHashMap<>();
    judged.forEach(j -> out.put(j.track().name(), resources.restarts(j.track().name())));
    return out;
  }

  private Map<String, Integer> resourceRoleChanges(List<ResourceTracker.Judgement> judged) {
    Map<String, Integer> out = new java.util.LinkedHashMap<>();
    judged.forEach(j -> out.put(j.track().name(), resources.roleChanges(j.track().name())));
    return out;
  }

  static String describe(ResourceTracker.Judgement j) {
    ResourceTracker.Track t = j.track();
    return String.format(
        Locale.ROOT,
        "%s (pid %d, %s%s): private RSS %d -> %d MiB, descriptors %d -> %d",
        t.name(),
        t.pid(),
        t.role(),
        j.ended() ? ", a stretch that ended" : "",
        t.baseline().privateKiB() >> 10,
        t.last().privateKiB() >> 10,
        t.baseline().fds(),
        t.last().fds());
  }

  private static String progress(Workload workload, Ledger ledger) {
    Workload.Counts c = workload.counts();
    long ok = c.ok().values().stream().mapToLong(Long::longValue).sum();
    long failed = c.failed().values().stream().mapToLong(Long::longValue).sum();
    return ok
        + " calls ok, "
        + failed
        + " failed, "
        + workload.liveObjects()
        + " live objects, "
        + ledger.size()
        + " keys in the ledger";
  }

  static String seedText(long seed) {
    return "0x" + Long.toHexString(seed);
  }

  /** A folder on tmpfs for the nodes' memory files (they hold the nodes' whole memory). */
  private static Path memoryRoot() {
    Path shm = Path.of("/dev/shm");
    try {
      return Files.createTempDirectory(
          Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
          "kvpool-chaos-");
    } catch (IOException e) {
      throw new BenchmarkFailedException(
          "cannot create a folder for the storage nodes' memory files: " + e, e);
    }
  }

  /** The storage nodes' disk tiers: on the machine's disk, not on tmpfs. */
  private static Path diskRoot() {
    try {
      return Files.createTempDirectory(
          Path.of(System.getProperty("java.io.tmpdir")), "kvpool-chaos-disks-");
    } catch (IOException e) {
      throw new BenchmarkFailedException(
          "cannot create a folder for the storage nodes' disk tiers: " + e, e);
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // best effort: a temporary folder on tmpfs
    }
  }
}
