package io.kvpool.bench.compare;

import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.NodeState;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.cli.StatusTable;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.PoolStats;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The {@code disk-3x} workload of {@code kvpool bench compare}: a working set three times the
 * pool's memory, on a local pool whose storage nodes have disk tiers and on the same pool without
 * them; the same gets after one storage node restarted on its memory files and its disk tier; the
 * same working set on Mooncake Store with its SSD offload ({@link MooncakeOffload}); the disk's own
 * O_DIRECT read limit ({@code fio}) in the same run; and the tiers' {@code du} sampled through a
 * fill to five times memory. Prints the figures and the goals (printed, never asserted) and
 * writes them to {@code benchmarks-disk-3x.md} in the report folder.
 */
public final class DiskTierComparison {
  /** The workload's name in {@code --workloads}. */
  public static final String WORKLOAD = "disk-3x";

  private static final int NODES = 2;

  /**
   * What to run.
   *
   * @param memoryPerNode each storage node's memory; the pool's is twice that
   * @param diskPerNode each node's disk tier cap
   * @param valueBytes the values' size (the disk reads' block size, and fio's)
   * @param clients client threads of the put and get passes
   * @param readThreads client threads of the parallel disk-read passes, and fio's jobs beside them
   *     (the tier's read path measured apart from one client thread's)
   * @param fioBytes the file fio reads
   * @param outputDir where {@code benchmarks-disk-3x.md} goes
   * @param venv the Python environment with Mooncake Store ({@code
   *     mooncake-transfer-engine-non-cuda})
   * @param agentScript {@code bench/python/agent.py}, which drives Mooncake Store
   */
  public record Settings(
      long memoryPerNode,
      long diskPerNode,
      int valueBytes,
      int clients,
      int readThreads,
      long fioBytes,
      Path outputDir,
      Path venv,
      Path agentScript) {

    public Settings {
      if (readThreads < 1 || readThreads > 64) {
        throw new IllegalArgumentException(
            "disk-3x read threads must be 1..64, got " + readThreads);
      }
    }

    /**
     * @param readThreads the parallel disk-read passes' threads, or 0 for the default: 4 (2 in the
     *     quick form)
     */
    public static Settings of(
        boolean quick, int readThreads, Path outputDir, Path venv, Path agentScript) {
      long memory = quick ? 32L << 20 : 128L << 20;
      int readers = readThreads > 0 ? readThreads : quick ? 2 : 4;
      return new Settings(
          memory,
          4 * memory,
          1 << 20,
          4,
          readers,
          quick ? 64L << 20 : 512L << 20,
          outputDir,
          venv,
          agentScript);
    }
  }

  private final Settings s;
  private final PrintStream out;
  private final List<String> rows = new ArrayList<>();
  private String mooncakeNote = "not run.";

  public DiskTierComparison(Settings settings, PrintStream out) {
    this.s = settings;
    this.out = out;
  }

  /** Runs the workload on both pools; returns the written report. */
  public Path run() throws Exception {
    long poolMemory = NODES * s.memoryPerNode();
    long keys3x = 3 * poolMemory / s.valueBytes();
    long keys5x = 5 * poolMemory / s.valueBytes();
    Path root = Files.createTempDirectory("kvpool-disk-3x-");
    // the segments are memory files, as with warm restarts in a pod: on tmpfs where there is one
    Path shm = Path.of("/dev/shm");
    Path memoryFiles =
        Files.isDirectory(shm) && Files.isWritable(shm)
            ? Files.createTempDirectory(shm, "kvpool-disk-3x-")
            : Files.createDirectories(root.resolve("memory"));
    out.printf(
        Locale.ROOT,
        "disk-3x: %d storage nodes x %s memory, disk tiers of %s each; %d values of %s (3x the"
            + " pool's memory), %d client threads (%d for the parallel disk reads); work folder %s%n",
        NODES,
        StatusTable.bytes(s.memoryPerNode()),
        StatusTable.bytes(s.diskPerNode()),
        keys3x,
        Workload.size(s.valueBytes()),
        s.clients(),
        s.readThreads(),
        root);
    List<String> goals = new ArrayList<>();
    try {
      Path tiers = Files.createDirectories(root.resolve("tiers"));
      TierWorkload.Pass withDiskGet;
      TierWorkload.Pass afterRestart;
      String restarted;
      TierWorkload.Pass cold;
      DeviceReadLimit.Result fio;
      DeviceReadLimit.Result fioOne;
      TierReadPath.Result tierAlone;
      DeviceReadLimit.Result fioAfter;
      Map<String, TierDiskUsage.Peak> peaks;
      Map<String, Path> folders;
      try (LocalPool pool = start("disk3x", tiers, memoryFiles.resolve("disk3x"));
          TierWorkload w =
              new TierWorkload(
                  pool.masterAddress(),
                  "d3x/",
                  s.valueBytes(),
                  Math.max(s.clients(), s.readThreads()))) {
        row("kvpool, disk tier", "put 3x", w.put(0, keys3x, s.clients()));
        withDiskGet = w.get(0, keys3x, s.clients());
        row("kvpool, disk tier", "get 3x", withDiskGet);
        // the older half of the set cannot be in memory (memory holds a third): disk-tier reads,
        // by one client thread and by several (the tier's read path apart from one client's)
        int n = s.readThreads();
        String threads = n + " thread" + (n == 1 ? "" : "s");
        row("kvpool, disk tier", "disk reads, page cache (1 thread)", w.get(0, keys3x / 2, 1));
        row(
            "kvpool, disk tier",
            "disk reads, page cache (" + threads + ")",
            w.get(0, keys3x / 2, n));
        folders = folders(pool, tiers);
        dropPageCache(folders.values());
        row("kvpool, disk tier", "disk reads, cold (1 thread)", w.get(0, keys3x / 2, 1));
        dropPageCache(folders.values());
        cold = w.get(0, keys3x / 2, n);
        row("kvpool, disk tier", "disk reads, cold (" + threads + ")", cold);
        // the newest quarter is in memory (no promotion: reads leave it there): the get path's
        // own rate with as many threads, what a tier read can at best reach end to end
        row(
            "kvpool, disk tier",
            "memory reads, newest quarter (" + threads + ")",
            w.get(keys3x - keys3x / 4, keys3x, n));
        fioOne = DeviceReadLimit.measure(root, s.valueBytes(), s.fioBytes(), 1);
        fio = DeviceReadLimit.measure(root, s.valueBytes(), s.fioBytes(), n);
        restarted = restartStorageNode(pool);
        afterRestart = w.get(0, keys3x, s.clients());
        row("kvpool, disk tier", "get 3x after " + restarted, afterRestart);
        fioRow(fioOne, 1);
        fioRow(fio, n);
        TierDiskUsage du = new TierDiskUsage(folders);
        try {
          row("kvpool, disk tier", "put 3x -> 5x (du sampled)", w.put(keys3x, keys5x, s.clients()));
          peaks = du.stop();
        } finally {
          du.close();
        }
        diskTotals(pool.masterAddress());
      }
      // the pool is stopped: its tiers' read path alone, in this process, beside fio's N jobs
      TierReadPath.Passes alone =
          TierReadPath.measure(
              folders, s.diskPerNode(), s.readThreads(), DiskTierComparison::dropPageCache);
      tierAloneRow("page cache", alone.pageCache());
      tierAloneRow("cold", alone.cold());
      tierAlone = alone.cold();
      // the device again right after the tier's cold pass: its rate drifts within a run here
      fioAfter = DeviceReadLimit.measure(root, s.valueBytes(), s.fioBytes(), s.readThreads());
      fioRow(fioAfter, s.readThreads());
      try (LocalPool pool = start("nodisk3x", null, memoryFiles.resolve("nodisk3x"));
          TierWorkload w =
              new TierWorkload(pool.masterAddress(), "n3x/", s.valueBytes(), s.clients())) {
        row("kvpool, no disk tier", "put 3x", w.put(0, keys3x, s.clients()));
        row("kvpool, no disk tier", "get 3x", w.get(0, keys3x, s.clients()));
      }
      mooncakeNote = mooncake(root.resolve("mooncake"), keys3x);
      goals.add(
          goal(
              "every get hits with a working set 3x memory",
              withDiskGet.hits() == keys3x,
              String.format(
                  Locale.ROOT,
                  "%d of %d hit, %d misses, %d wrong, %d failed",
                  withDiskGet.hits(),
                  keys3x,
                  withDiskGet.misses(),
                  withDiskGet.wrong(),
                  withDiskGet.failures())));
      goals.add(
          goal(
              "every get hits with a working set 3x memory after a storage node restart",
              afterRestart.hits() == keys3x,
              String.format(
                  Locale.ROOT,
                  "%s: %d of %d hit, %d misses, %d wrong, %d failed",
                  restarted,
                  afterRestart.hits(),
                  keys3x,
                  afterRestart.misses(),
                  afterRestart.wrong(),
                  afterRestart.failures())));
      goals.add(
          fio.measured()
              ? goal(
                  "1 MiB disk-tier reads >= 0.8x fio O_DIRECT",
                  cold.gigabytesPerSecond() >= 0.8 * fio.gigabytesPerSecond(),
                  String.format(
                      Locale.ROOT,
                      "cold reads by %d threads %.3f GB/s / fio %d jobs %.3f GB/s = %.2f (the"
                          + " tier's read path alone, no client: %.3f GB/s / fio right after it"
                          + " %.3f GB/s = %.2f)",
                      s.readThreads(),
                      cold.gigabytesPerSecond(),
                      s.readThreads(),
                      fio.gigabytesPerSecond(),
                      cold.gigabytesPerSecond() / fio.gigabytesPerSecond(),
                      tierAlone.gigabytesPerSecond(),
                      fioAfter.gigabytesPerSecond(),
                      fioAfter.measured()
                          ? tierAlone.gigabytesPerSecond() / fioAfter.gigabytesPerSecond()
                          : 0))
              : "| 1 MiB disk-tier reads >= 0.8x fio O_DIRECT | not measured | "
                  + fio.problem()
                  + " |");
      peaks.forEach(
          (node, p) ->
              goals.add(
                  goal(
                      "du of " + node + "'s tier <= its cap at every sample of a fill to 5x memory",
                      p.allocatedBytes() <= s.diskPerNode() && p.apparentBytes() <= s.diskPerNode(),
                      String.format(
                          Locale.ROOT,
                          "max du -s -B1 %d, max du -sb %d, cap %d (%d samples)",
                          p.allocatedBytes(),
                          p.apparentBytes(),
                          s.diskPerNode(),
                          p.samples()))));
    } finally {
      delete(root);
      if (Files.exists(memoryFiles)) {
        delete(memoryFiles);
      }
    }
    return report(goals);
  }

  /**
   * Mooncake Store with SSD offload on the same working set: as many storage processes as the
   * pool's nodes, each with a node's memory and disk cap, and as many client threads; returns the
   * report's note on it (what ran, or why it did not).
   */
  private String mooncake(Path folder, long keys3x) throws IOException, InterruptedException {
    String target = "Mooncake Store + SSD offload";
    out.println("disk-3x: Mooncake Store with SSD offload (logs in " + folder + ")");
    MooncakeOffload m;
    try {
      m =
          MooncakeOffload.start(
              s.venv(),
              s.agentScript(),
              folder,
              NODES,
              s.memoryPerNode(),
              s.diskPerNode(),
              s.clients(),
              s.valueBytes());
    } catch (MooncakeOffload.Unavailable e) {
      out.println("disk-3x: Mooncake Store skipped: " + e.getMessage());
      return "not run: " + e.getMessage() + ".";
    }
    try (m) {
      row(target, "put 3x", m.put("d3x/", 0, keys3x, s.clients(), 30));
      long retries = m.lastRetries();
      row(target, "get 3x", m.get("d3x/", 0, keys3x, s.clients()));
      // the older half cannot be in memory: read back from the offload files
      row(target, "disk reads, page cache (1 thread)", m.get("d3x/", 0, keys3x / 2, 1));
      dropPageCache(List.of(m.folder()));
      row(target, "disk reads, cold (1 thread)", m.get("d3x/", 0, keys3x / 2, 1));
      MooncakeOffload.FolderUsage usage = m.folderUsage();
      String line =
          String.format(
              Locale.ROOT,
              "| %s | after the gets: the offload folders hold %d files, du -s -B1 %d B | | | |",
              target,
              usage.files(),
              usage.bytes());
      rows.add(line);
      out.println("  " + line);
      return String.format(
          Locale.ROOT,
          "%d storage processes of %s memory and an offload cap of %s each, %d clients with no"
              + " segment, protocol tcp, in a private network namespace; %s. Every value is"
              + " written to disk as it is stored (no --offload_on_evict), so the folders hold the"
              + " whole set. The puts were tried"
              + " again %d times in all (insufficient space while the memory is held by values not"
              + " yet written; each value for up to 30 s). With the defaults nothing reaches the"
              + " disk here: a storage process takes its offload queue once per heartbeat (10 s)"
              + " and its bucket backend writes a bucket only once a batch holds 500 keys or 256"
              + " MiB, more than its memory holds; the rest is reported back as not written and"
              + " evicted (by hand, 96 puts of 1 MiB into 32 MiB: the offload folder stayed empty"
              + " and only the values still in memory were found).",
          NODES,
          StatusTable.bytes(s.memoryPerNode()),
          StatusTable.bytes(s.diskPerNode()),
          s.clients(),
          MooncakeOffload.CONFIGURATION,
          retries);
    } catch (IOException e) {
      out.println("disk-3x: Mooncake Store stopped: " + e.getMessage());
      return "stopped: " + e.getMessage() + ".";
    }
  }

  private LocalPool start(String poolId, Path tiers, Path memoryFiles) {
    LocalPoolConfig.Builder b =
        LocalPool.builder()
            .poolId(poolId)
            .storageNodes(NODES)
            .memoryPerNode(Long.toString(s.memoryPerNode()))
            .memoryDirs(memoryFiles);
    if (tiers != null) {
      b.storageOption("--disk-size", Long.toString(s.diskPerNode()))
          .storageOption("--disk-dir", tiers.toString());
    }
    LocalPoolConfig config = b.build();
    out.println("disk-3x: pool " + poolId + " (logs in " + config.logDir() + ")");
    return config.start();
  }

  /**
   * Stops the last storage node (SIGTERM: it writes its inventory beside its memory files) and
   * starts it again on its memory files and its disk tier, then waits until the master counts it
   * alive with at least the replicas it held; returns what was done, for the report.
   */
  private String restartStorageNode(LocalPool pool) throws InterruptedException {
    StorageNodeProcess node = pool.storageNodes().get(NODES - 1);
    AdminApi master = new AdminApi(pool.adminAddress());
    long held = replicas(master, node.id(), null);
    long t0 = System.nanoTime();
    node.process().stop();
    StorageNodeProcess again = pool.startStorageNode(node.id());
    long deadline = t0 + TimeUnit.MINUTES.toNanos(2);
    long back;
    while ((back = replicas(master, node.id(), again.rpcAddress())) < held) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            node.id() + " came back with " + back + " of its " + held + " replicas in 2 min");
      }
      TimeUnit.MILLISECONDS.sleep(100); // polling the master's view of the node
    }
    String done =
        String.format(
            Locale.ROOT,
            "%s restarted (SIGTERM, %d replicas back in %.1f s)",
            node.id(),
            back,
            (System.nanoTime() - t0) / 1e9);
    out.println("disk-3x: " + done);
    return done;
  }

  /**
   * The replicas the master counts on the node while it is ALIVE (at {@code endpoint}, when given),
   * else -1.
   */
  private static long replicas(AdminApi master, String nodeId, String endpoint) {
    try {
      return master.masterStatus().nodes().stream()
          .filter(
              n ->
                  n.id().equals(nodeId)
                      && n.nodeState() == NodeState.ALIVE
                      && (endpoint == null || endpoint.equals(n.endpoint())))
          .mapToLong(MasterStatus.NodeStatus::replicas)
          .findFirst()
          .orElse(-1);
    } catch (AdminApi.AdminApiException e) {
      return -1;
    }
  }

  /** Each node's tier folder: the node id's folder under {@code --disk-dir}. */
  private static Map<String, Path> folders(LocalPool pool, Path tiers) {
    Map<String, Path> out = new LinkedHashMap<>();
    for (StorageNodeProcess n : pool.storageNodes()) {
      out.put(n.id(), tiers.resolve(n.id()));
    }
    return out;
  }

  /**
   * Writes the tier files' dirty pages and drops their cached ones ({@code dd iflag=nocache}: this
   * folder's files only, not the machine's page cache), so the next reads come from the disk.
   */
  private static void dropPageCache(Iterable<Path> folders)
      throws IOException, InterruptedException {
    List<String> files = new ArrayList<>();
    for (Path f : folders) {
      try (Stream<Path> walk = Files.walk(f)) {
        walk.filter(Files::isRegularFile).forEach(p -> files.add(p.toString()));
      }
    }
    if (files.isEmpty()) {
      return;
    }
    List<String> command = new ArrayList<>(List.of("sh", "-c", DROP_SCRIPT, "drop"));
    command.addAll(files);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      throw new IOException("dropping the tier files' cached pages failed: " + output);
    }
  }

  private static final String DROP_SCRIPT =
      "sync \"$@\" && for f in \"$@\"; do dd if=\"$f\" iflag=nocache count=0 status=none; done";

  private void diskTotals(String master) {
    try (KvPoolClient c =
        KvPoolClient.connect(
            ClientConfig.builder().master(master).clientId("disk-3x-stats").build())) {
      PoolStats stats = c.stats();
      rows.add(
          String.format(
              Locale.ROOT,
              "| kvpool, disk tier | after the fill: STATS says memory %s of %s, disk %s of %s on %d"
                  + " tiers, %d objects | | | |",
              StatusTable.bytes(stats.usedBytes()),
              StatusTable.bytes(stats.capacityBytes()),
              StatusTable.bytes(stats.disk().usedBytes()),
              StatusTable.bytes(stats.disk().capacityBytes()),
              stats.disk().nodes(),
              stats.objects()));
    }
  }

  private void tierAloneRow(String pass, TierReadPath.Result r) {
    String line =
        String.format(
            Locale.ROOT,
            "| kvpool disk tier alone (in-process, no client or socket) | %s reads of every record"
                + " (%d threads), CRC32C-checked as a node serves them, not sent | | %.3f | %d"
                + " read, %d miss |",
            pass,
            s.readThreads(),
            r.gigabytesPerSecond(),
            r.records() - r.misses(),
            r.misses());
    rows.add(line);
    out.println("  " + line);
  }

  private void fioRow(DeviceReadLimit.Result fio, int jobs) {
    String line =
        fio.measured()
            ? String.format(
                Locale.ROOT,
                "| fio O_DIRECT | sequential %s reads (%d job%s, psync) | | %.3f | |",
                Workload.size(s.valueBytes()),
                jobs,
                jobs == 1 ? "" : "s",
                fio.gigabytesPerSecond())
            : "| fio O_DIRECT | not measured (" + jobs + " jobs): " + fio.problem() + " | | | |";
    rows.add(line);
    out.println("  " + line);
  }

  private void row(String target, String pass, TierWorkload.Pass p) {
    boolean put = pass.startsWith("put");
    String line =
        String.format(
            Locale.ROOT,
            "| %s | %s | %s | %.3f | %s |",
            target,
            pass,
            put ? "-" : String.format(Locale.ROOT, "%.3f", p.hitRatio()),
            p.gigabytesPerSecond(),
            put
                ? String.format(Locale.ROOT, "%d stored, %d failed", p.hits(), p.failures())
                : String.format(
                    Locale.ROOT,
                    "%d hit, %d miss, %d wrong, %d failed",
                    p.hits(),
                    p.misses(),
                    p.wrong(),
                    p.failures()));
    rows.add(line);
    out.println("  " + line);
  }

  private static String goal(String what, boolean met, String figures) {
    return "| " + what + " | " + (met ? "met" : "NOT met") + " | " + figures + " |";
  }

  private Path report(List<String> goals) throws IOException {
    StringBuilder md = new StringBuilder();
    md.append("## Disk tier: a working set 3x the pool's memory (")
        .append(LocalDate.now(ZoneOffset.UTC))
        .append(")\n\n")
        .append(
            String.format(
                Locale.ROOT,
                "%d storage nodes x %s memory (memory files on tmpfs, as for warm restarts), disk"
                    + " tiers of %s each (R=1); %s values; %d client threads for puts and gets;"
                    + " the disk-read passes by one thread and by %d, beside fio with as many jobs"
                    + " (each one request at a time). GB/s of values stored or read back.%n%n",
                NODES,
                StatusTable.bytes(s.memoryPerNode()),
                StatusTable.bytes(s.diskPerNode()),
                Workload.size(s.valueBytes()),
                s.clients(),
                s.readThreads()))
        .append("| target | pass | hit ratio | GB/s | values |\n| --- | --- | --- | --- | --- |\n");
    rows.forEach(r -> md.append(r).append('\n'));
    md.append("\nMooncake Store with SSD offload: ").append(mooncakeNote).append("\n\n");
    md.append("| goal (printed, not asserted) | | figures |\n| --- | --- | --- |\n");
    goals.forEach(g -> md.append(g).append('\n'));
    out.println();
    out.print(md);
    Files.createDirectories(s.outputDir());
    Path file = s.outputDir().resolve("benchmarks-disk-3x.md");
    Files.writeString(file, md.toString());
    out.println("disk-3x report: " + file);
    return file;
  }

  private static void delete(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
