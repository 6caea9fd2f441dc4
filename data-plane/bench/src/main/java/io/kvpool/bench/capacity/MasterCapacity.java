package io.kvpool.bench.capacity;

import io.kvpool.bench.BenchmarkFailedException;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.StatsReply;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code kvpool bench master-capacity}: how far one master goes. For each size, a fresh master JVM
 * of the chosen heap is filled with that many metadata-only objects by synthetic storage nodes
 * through the real registration protocol, then measured: live heap per object (after a full GC),
 * put and get metadata operations per second of master CPU, and the recovery of a new master after
 * the first one is killed (every node re-registers its whole inventory; the clock runs from the new
 * master serving to every object being known again). Ends with the objects that fit this heap and
 * 16 GiB, and where the bytes go (the class histogram of the largest size).
 */
public final class MasterCapacity {
  /** The goal: objects one master should hold in a 16 GiB heap. */
  static final long GOAL_OBJECTS_IN_16_GIB = 50_000_000L;

  private static final long GIB = 1L << 30;

  /**
   * The share of the heap the "fit" size aims to fill with live objects (the rest: GC headroom).
   */
  private static final double FIT_SHARE = 0.85;

  /**
   * What the "fit" size leaves free at least, whatever the share: a second master recovering every
   * object from the nodes' inventories needs more than the live objects (a 128 MiB master at 85 %,
   * the --quick run, ran out of memory in its recovery once in seven CI runs).
   */
  private static final long RECOVERY_RESERVE_BYTES = 32L << 20;

  private static final int HISTOGRAM_ROWS = 12;

  /**
   * What to run. {@code sizes}: object counts; a size of 0 stands for "as many as fit": the objects
   * that fill {@link #FIT_SHARE} of the heap at the bytes per object measured before it.
   */
  public record Settings(
      String heap, List<Long> sizes, int storageNodes, int clients, Duration phase) {}

  /** A registration of every node's inventory: wall time and the master's CPU time. */
  private record Ingest(Duration wall, Duration masterCpu) {
    double perMasterCore(long objects) {
      return objects / (masterCpu.toNanos() / 1e9);
    }
  }

  private record Result(
      long objects,
      Ingest fill,
      long liveBytes,
      double bytesPerObject,
      double bytesPerPutObject,
      MetadataLoad.Rate puts,
      MetadataLoad.Rate gets,
      long recovered,
      Ingest recovery,
      HeapCensus census,
      HeapCensus baseline) {}

  private MasterCapacity() {}

  public static void run(Settings settings, PrintStream out) {
    long heapBytes = parseHeap(settings.heap());
    Path logs;
    try {
      logs = Files.createTempDirectory("kvpool-master-capacity-");
    } catch (IOException e) {
      throw new BenchmarkFailedException("cannot create a folder for the masters' logs", e);
    }
    out.printf(
        Locale.ROOT,
        "kvpool bench master-capacity: one master JVM at a time (-Xmx%s, G1), %d synthetic storage"
            + " nodes, keys of %d characters, R=1, metadata only; %s per load phase with %d"
            + " clients; logs in %s%n",
        settings.heap(),
        settings.storageNodes(),
        CapacityKeys.LENGTH,
        seconds(settings.phase()),
        settings.clients(),
        logs);
    out.printf(
        Locale.ROOT,
        "%12s %9s %10s %9s %9s %11s %11s %11s %11s %10s %11s%n",
        "objects",
        "fill",
        "live heap",
        "B/object",
        "B/put obj",
        "put ops/s",
        "put/core",
        "get ops/s",
        "get/core",
        "recovery",
        "rec./core");
    List<Result> results = new ArrayList<>();
    int masters = 0;
    for (long size : settings.sizes()) {
      long objects = size;
      if (size == 0) {
        if (results.isEmpty()) {
          throw new BenchmarkFailedException("'fit' needs a measured size before it");
        }
        Result last = results.get(results.size() - 1);
        objects = fitting(heapBytes, last.baseline().totalBytes(), last.bytesPerObject());
        if (objects <= last.objects()) {
          out.printf(Locale.ROOT, "(fit: %,d objects, no more than measured already)%n", objects);
          continue;
        }
      }
      Result r = measure(Math.toIntExact(objects), settings, logs, masters);
      masters += 2;
      results.add(r);
      out.printf(
          Locale.ROOT,
          "%,12d %9s %7.0f MB %9.0f %9.0f %,11.0f %,11.0f %,11.0f %,11.0f %10s %,11.0f%n",
          r.objects(),
          seconds(r.fill().wall()),
          r.liveBytes() / 1e6,
          r.bytesPerObject(),
          r.bytesPerPutObject(),
          r.puts().perSecond(),
          r.puts().perMasterCore(),
          r.gets().perSecond(),
          r.gets().perMasterCore(),
          seconds(r.recovery().wall()),
          r.recovery().perMasterCore(r.recovered()));
    }
    summarise(results, heapBytes, settings, out);
  }

  private static Result measure(int objects, Settings settings, Path logs, int masterNumber) {
    List<SyntheticNode> nodes = new ArrayList<>();
    for (int i = 0; i < settings.storageNodes(); i++) {
      nodes.add(new SyntheticNode("synthetic-" + i, MasterJvm.POOL_ID));
    }
    try {
      Ingest fill;
      HeapCensus baseline;
      HeapCensus census;
      MetadataLoad.Rate puts;
      MetadataLoad.Rate gets;
      AtomicInteger nextKey = new AtomicInteger(objects);
      long putObjects;
      long putBytes;
      try (MasterJvm first =
          MasterJvm.start(settings.heap(), logs.resolve("master-" + masterNumber + ".log"))) {
        baseline = HeapCensus.of(first.pid());
        assign(nodes, objects);
        fill = registerAll(nodes, first);
        requireObjects(first, objects);
        census = HeapCensus.of(first.pid());
        MetadataLoad load = new MetadataLoad(first, nodes, settings.clients());
        Duration warmUp = settings.phase().dividedBy(2); // the JIT compiles the paths first
        load.puts(nextKey, warmUp);
        load.gets(objects, warmUp);
        int beforePuts = nextKey.get();
        HeapCensus beforePutCensus = HeapCensus.of(first.pid());
        puts = load.puts(nextKey, settings.phase());
        HeapCensus afterPuts = HeapCensus.of(first.pid());
        putObjects = nextKey.get() - beforePuts;
        putBytes = afterPuts.totalBytes() - beforePutCensus.totalBytes();
        gets = load.gets(objects, settings.phase());
        nodes.forEach(SyntheticNode::disconnect);
        first.kill();
      }
      long total = nodes.stream().mapToLong(SyntheticNode::objects).sum();
      Ingest recovery;
      try (MasterJvm next =
          MasterJvm.start(settings.heap(), logs.resolve("master-" + (masterNumber + 1) + ".log"))) {
        recovery = registerAll(nodes, next);
        requireObjects(next, total);
        requireReadable(next, nodes);
      }
      return new Result(
          objects,
          fill,
          census.totalBytes(),
          (census.totalBytes() - baseline.totalBytes()) / (double) objects,
          putBytes / (double) putObjects,
          puts,
          gets,
          total,
          recovery,
          census,
          baseline);
    } finally {
      nodes.forEach(SyntheticNode::close);
    }
  }

  /** Keys 0..objects-1, dealt round-robin to the nodes, as metadata they hold. */
  private static void assign(List<SyntheticNode> nodes, int objects) {
    long generationBase = (System.currentTimeMillis() - 60_000) << 20; // issued a minute ago
    int n = nodes.size();
    int[] batch = new int[8192];
    for (int k = 0; k < n; k++) {
      int count = 0;
      for (int key = k; key < objects; key += n) {
        batch[count++] = key;
        if (count == batch.length) {
          nodes.get(k).hold(batch, count, generationBase);
          count = 0;
        }
      }
      nodes.get(k).hold(batch, count, generationBase);
    }
  }

  /** Every node registers its inventory with {@code master}, in parallel; the time it took. */
  private static Ingest registerAll(List<SyntheticNode> nodes, MasterJvm master) {
    Duration cpuBefore = master.cpu();
    long start = System.nanoTime();
    List<CompletableFuture<Void>> done = new ArrayList<>();
    for (SyntheticNode n : nodes) {
      done.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  n.register(master.rpc());
                } catch (IOException e) {
                  throw new BenchmarkFailedException(
                      "node "
                          + n.id()
                          + " could not register with the master: "
                          + e
                          + " (log "
                          + master.log()
                          + ")",
                      e);
                }
              }));
    }
    try {
      CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new BenchmarkFailedException("registration failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted during registration", e);
    }
    return new Ingest(Duration.ofNanos(System.nanoTime() - start), master.cpu().minus(cpuBefore));
  }

  /** The master's STATS count exactly {@code expected} objects. */
  private static void requireObjects(MasterJvm master, long expected) {
    try (RpcConnection c = client(master)) {
      StatsReply stats =
          StatsReply.decode(c.call(Opcode.STATS, null).reader(), VersionInfo.PROTOCOL_MINOR);
      if (stats.objects() != expected) {
        throw new BenchmarkFailedException(
            "the master counts "
                + stats.objects()
                + " objects, the nodes registered "
                + expected
                + " (log "
                + master.log()
                + ")");
      }
    } catch (IOException e) {
      throw new BenchmarkFailedException("STATS failed: " + e + " (log " + master.log() + ")", e);
    }
  }

  /** One key of each node is found after recovery, with its replica on that node. */
  private static void requireReadable(MasterJvm master, List<SyntheticNode> nodes) {
    try (RpcConnection c = client(master)) {
      for (SyntheticNode n : nodes) {
        io.kvpool.protocol.BodyWriter w = new io.kvpool.protocol.BodyWriter();
        new KeyList(List.of(n.sampleKey())).encode(w);
        ReplicaListResult r =
            ReplicaListReply.decode(c.call(Opcode.GET_REPLICAS, w).reader()).results().get(0);
        if (r.replicas().isEmpty() || !r.replicas().get(0).nodeId().equals(n.id())) {
          throw new BenchmarkFailedException(
              "after recovery " + n.sampleKey() + " is " + r.status() + " with " + r.replicas());
        }
      }
    } catch (IOException e) {
      throw new BenchmarkFailedException(
          "GET_REPLICAS failed: " + e + " (log " + master.log() + ")", e);
    }
  }

  private static RpcConnection client(MasterJvm master) throws IOException {
    return RpcConnection.open(
        master.rpc(),
        new Handshake(VersionInfo.CURRENT, Role.CLIENT, MasterJvm.POOL_ID, "capacity-check"),
        Duration.ofMinutes(2));
  }

  /**
   * Objects that fill {@link #FIT_SHARE} of the heap but leave {@link #RECOVERY_RESERVE_BYTES}
   * free, rounded down to 100,000.
   */
  static long fitting(long heapBytes, long baselineBytes, double bytesPerObject) {
    double live = Math.min(heapBytes * FIT_SHARE, heapBytes - RECOVERY_RESERVE_BYTES);
    long n = (long) ((live - baselineBytes) / bytesPerObject);
    return Math.max(0, n / 100_000 * 100_000);
  }

  private static void summarise(
      List<Result> results, long heapBytes, Settings settings, PrintStream out) {
    if (results.isEmpty()) {
      return;
    }
    Result largest = results.stream().max(Comparator.comparingLong(Result::objects)).orElseThrow();
    double bpo = largest.bytesPerObject();
    out.printf(
        Locale.ROOT,
        "at %,d objects: %.0f bytes per object; a 16 GiB heap holds about %,d objects at %.0f %%"
            + " live (goal %,d: %s); this -Xmx%s about %,d%n",
        largest.objects(),
        bpo,
        fitting(16 * GIB, largest.baseline().totalBytes(), bpo),
        FIT_SHARE * 100,
        GOAL_OBJECTS_IN_16_GIB,
        fitting(16 * GIB, largest.baseline().totalBytes(), bpo) >= GOAL_OBJECTS_IN_16_GIB
            ? "met"
            : "not met",
        settings.heap(),
        fitting(heapBytes, largest.baseline().totalBytes(), bpo));
    out.printf(
        Locale.ROOT,
        "recovery of %,d objects: %.1f s, %.1f s of master CPU (%,.0f objects per CPU-second); a"
            + " failover adds the election (the Lease's expiry, see bench failover)%n",
        largest.recovered(),
        largest.recovery().wall().toNanos() / 1e9,
        largest.recovery().masterCpu().toNanos() / 1e9,
        largest.recovery().perMasterCore(largest.recovered()));
    out.printf(
        Locale.ROOT,
        "where the bytes go at %,d objects (live heap, per object):%n",
        largest.objects());
    out.printf(Locale.ROOT, "  %10s %10s  %s%n", "bytes", "instances", "class");
    largest.census().rows().stream()
        .map(
            r ->
                new HeapCensus.Row(
                    r.className(),
                    r.instances() - largest.baseline().row(r.className()).instances(),
                    r.bytes() - largest.baseline().row(r.className()).bytes()))
        .sorted(Comparator.comparingLong(HeapCensus.Row::bytes).reversed())
        .limit(HISTOGRAM_ROWS)
        .forEach(
            r ->
                out.printf(
                    Locale.ROOT,
                    "  %10.1f %10.2f  %s%n",
                    r.bytes() / (double) largest.objects(),
                    r.instances() / (double) largest.objects(),
                    r.className()));
  }

  /** Bytes of a -Xmx value: digits with an optional k, m or g. */
  public static long parseHeap(String heap) {
    String h = heap.strip().toLowerCase(Locale.ROOT);
    long unit =
        switch (h.isEmpty() ? ' ' : h.charAt(h.length() - 1)) {
          case 'k' -> 1L << 10;
          case 'm' -> 1L << 20;
          case 'g' -> 1L << 30;
          default -> 1;
        };
    String digits = unit == 1 ? h : h.substring(0, h.length() - 1);
    try {
      return Long.parseLong(digits) * unit;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "heap " + heap + " is not a -Xmx value such as 512m or 6g", e);
    }
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.2f s", d.toNanos() / 1e9);
  }
}
