package io.kvpool.bench.command;

import io.kvpool.bench.compare.QuickBench;
import io.kvpool.cli.Checks;
import io.kvpool.cli.Converters;
import io.kvpool.cli.LocalPool;
import io.kvpool.cli.LocalPoolConfig;
import io.kvpool.cli.LocalSecrets;
import io.kvpool.cli.StatusTable;
import io.kvpool.client.ClientConfig;
import io.kvpool.common.HostPort;
import io.kvpool.nativemem.HugePageMode;
import io.kvpool.protocol.PoolKey;
import io.kvpool.protocol.TlsContext;
import io.kvpool.storage.ReadServing;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvpool bench}: throughput, latency and CPU of kvpool next to the machine's
 * request/response limit and Redis, with the harness of {@code kvpool bench compare} (one workload,
 * no report).
 */
@Command(
    name = "bench",
    description = {
      "Measure put/get GB/s, ops/s, latency and CPU per operation against a raw NIO request/response "
          + "baseline (and Redis if installed), on a local pool or the pool at --master.",
      "'kvpool bench compare' runs the whole comparison with memcached, Redis and Mooncake and writes the report;"
          + " 'kvpool bench failover' measures master failover."
    })
final class BenchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--master",
      paramLabel = "HOST:PORT[,HOST:PORT...]",
      description =
          "Measure the pool at these masters instead of starting a local one (the benchmark's keys are "
              + "removed at the end).")
  String master;

  @Option(
      names = "--value-size",
      paramLabel = "SIZE",
      defaultValue = "1MiB",
      converter = Converters.Size.class,
      description = "Bytes per value, 8 bytes..16MiB (default: ${DEFAULT-VALUE}).")
  long valueSize;

  @Option(
      names = "--clients",
      paramLabel = "N",
      defaultValue = "4",
      description = "Client threads, 1..8 (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      defaultValue = "1",
      description = "Copies per value, 1..16 (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--seconds",
      paramLabel = "N",
      defaultValue = "10",
      description =
          "Seconds per target, split between put and get, 2..3600 (default: ${DEFAULT-VALUE}).")
  int seconds;

  @Option(
      names = "--warm-up",
      paramLabel = "DURATION",
      defaultValue = "60s",
      converter = Converters.Time.class,
      description =
          "Longest untimed warm-up per target: passes of the workload run until the JVMs' JIT"
              + " compilers take at most 5%% of a pass's CPU, or this long (default:"
              + " ${DEFAULT-VALUE}).")
  Duration warmUp;

  @Option(
      names = "--storage-nodes",
      paramLabel = "N",
      defaultValue = "3",
      description = "Storage nodes of the local pool, 1..64 (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      defaultValue = "512MiB",
      converter = Converters.Size.class,
      description = "Memory per storage node of the local pool (default: ${DEFAULT-VALUE}).")
  long memory;

  @Option(
      names = "--huge-pages",
      paramLabel = "MODE",
      defaultValue = "none",
      description =
          "none, transparent or explicit, for the local pool (default: ${DEFAULT-VALUE}).")
  HugePageMode hugePages;

  @Option(
      names = "--read-serving",
      paramLabel = "MODE[,MODE]",
      split = ",",
      description =
          "How the local pool's storage nodes send get replies: sendfile, copy, or both (copy,sendfile):"
              + " one pool each, measured in the same run as targets kvpool-copy and kvpool-sendfile"
              + " (default: the nodes' default, copy).")
  List<ReadServing> readServing;

  @Option(
      names = "--prefault",
      paramLabel = "BOOL",
      defaultValue = "true",
      arity = "1",
      description =
          "Whether the local pool's storage nodes touch their memory at start; the row 'fill' is the"
              + " first fill of a fresh pool either way (default: ${DEFAULT-VALUE}).")
  boolean prefault;

  @Option(
      names = "--extents",
      description =
          "Also measure kvpool with small puts (R=1, values up to 256KiB) through extents (protocol 2.4),"
              + " as the target kvpool-extents, in the same run.")
  boolean extents;

  @Option(
      names = "--full",
      description =
          "Also measure puts into a full pool, as the row 'full': an untimed put of twice the pool's"
              + " memory's worth of values, then the pool's memory's worth under fresh keys, timed, each"
              + " put making room by eviction (a cache's steady state). Local pool only.")
  boolean full;

  @Option(
      names = "--security",
      paramLabel = "MODE",
      defaultValue = "none",
      description =
          "For the local pool: none, auth (every connection proves the pool's keys) or tls (auth inside"
              + " TLS 1.3) (default: ${DEFAULT-VALUE}).")
  Security security;

  /** How the local pool is protected. */
  enum Security {
    NONE,
    AUTH,
    TLS
  }

  private final PrintStream out;

  BenchCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (valueSize < 8 || valueSize > QuickBench.MAX_VALUE_BYTES) {
      throw Checks.usage(spec, "--value-size must be between 8 bytes and 16MiB, got " + valueSize);
    }
    Checks.range(spec, "--clients", clients, 1, QuickBench.MAX_CLIENTS);
    Checks.range(spec, "--replicas", replicas, 1, 16);
    Checks.range(spec, "--seconds", seconds, 2, 3600);
    Checks.range(spec, "--storage-nodes", nodes, 1, 64);
    Checks.requireMemory(spec, memory);
    Duration perTarget = Duration.ofSeconds(seconds);
    if (master != null) {
      if (full) {
        throw Checks.usage(
            spec, "--full evicts everything a pool holds: it measures the local pool only");
      }
      String endpoints = endpoints(spec, master);
      out.println("kvpool bench against the pool at " + endpoints);
      QuickBench.run(
          new QuickBench.Settings(
              (int) valueSize,
              clients,
              replicas,
              perTarget,
              List.of(new QuickBench.Pool("kvpool", endpoints, Map.of())),
              b -> b,
              extents,
              warmUp,
              false),
          out);
      return 0;
    }
    if (replicas > nodes) {
      throw Checks.usage(
          spec, "--replicas " + replicas + " needs at least as many --storage-nodes, got " + nodes);
    }
    List<ReadServing> modes =
        readServing == null || readServing.isEmpty()
            ? List.of(ReadServing.DEFAULT)
            : readServing.stream().distinct().toList();
    UnaryOperator<ClientConfig.Builder> client = b -> b;
    List<UnaryOperator<LocalPoolConfig.Builder>> security = new ArrayList<>();
    if (this.security != Security.NONE) {
      Path keys = LocalSecrets.keys();
      security.add(
          b ->
              b.masterOption("--secret-dir", keys.toString())
                  .storageOption("--secret-dir", keys.toString()));
      TlsContext tls = null;
      if (this.security == Security.TLS) {
        Path tlsDir = LocalSecrets.tls();
        security.add(
            b ->
                b.masterOption("--tls-dir", tlsDir.toString())
                    .storageOption("--tls-dir", tlsDir.toString()));
        tls = TlsContext.trusting(tlsDir.resolve("ca.crt"));
      }
      PoolKey clientKey = PoolKey.read(keys.resolve("client-key"));
      TlsContext clientTls = tls;
      client = b -> b.poolKey(clientKey).tls(clientTls);
    }
    // every pool keeps its segments in memory files (what sendfile serves from), on tmpfs, so that
    // the ways of serving are compared on the same memory; the folder goes with the benchmark
    Path memoryRoot = Files.createTempDirectory(Path.of("/dev/shm"), "kvpool-bench-");
    List<LocalPool> pools = new ArrayList<>();
    try {
      List<QuickBench.Pool> measured = new ArrayList<>();
      for (ReadServing mode : modes) {
        String name =
            modes.size() == 1 ? "kvpool" : "kvpool-" + mode.name().toLowerCase(Locale.ROOT);
        LocalPoolConfig.Builder builder =
            LocalPool.builder()
                .poolId("bench")
                .storageNodes(nodes)
                .memoryPerNode(Long.toString(memory))
                .memoryDirs(memoryRoot.resolve(name))
                .storageOption("--huge-pages", hugePages.name().toLowerCase(Locale.ROOT))
                .storageOption("--read-serving", mode.name().toLowerCase(Locale.ROOT))
                .storageOption("--prefault", Boolean.toString(prefault));
        for (UnaryOperator<LocalPoolConfig.Builder> option : security) {
          builder = option.apply(builder);
        }
        LocalPoolConfig config = builder.build();
        out.println(
            "kvpool bench: starting "
                + name
                + ", a local pool of "
                + nodes
                + " storage nodes x "
                + StatusTable.bytes(memory)
                + " (read serving "
                + mode.name().toLowerCase(Locale.ROOT)
                + ", prefault "
                + prefault
                + ", logs in "
                + config.logDir()
                + ")");
        LocalPool pool = config.start();
        pools.add(pool);
        // the pool is thrown away afterwards: no need to wait out read leases to remove the keys
        Map<String, List<ProcessHandle>> processes = new LinkedHashMap<>();
        processes.put("master", List.of(pool.master().handle()));
        processes.put(
            "storage", pool.storageNodes().stream().map(n -> n.process().handle()).toList());
        measured.add(new QuickBench.Pool(name, pool.masterAddress(), processes));
      }
      out.println("security: " + this.security.name().toLowerCase(Locale.ROOT));
      QuickBench.run(
          new QuickBench.Settings(
              (int) valueSize,
              clients,
              replicas,
              perTarget,
              measured,
              client,
              extents,
              warmUp,
              full),
          out);
    } finally {
      for (LocalPool pool : pools) {
        pool.close();
      }
      deleteTree(memoryRoot);
    }
    return 0;
  }

  static void deleteTree(Path root) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }

  /** A valid endpoint list, normalised; else a usage error. */
  static String endpoints(CommandSpec spec, String text) {
    try {
      return HostPort.parseList(text).stream()
          .map(HostPort::toString)
          .collect(Collectors.joining(","));
    } catch (IllegalArgumentException e) {
      throw Checks.usage(spec, "--master: " + e.getMessage());
    }
  }
}
