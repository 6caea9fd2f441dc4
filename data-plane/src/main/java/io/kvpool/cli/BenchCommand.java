package io.kvpool.cli;

import io.kvpool.bench.Benchmark;
import io.kvpool.common.HostPort;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** {@code kvpool bench}: throughput and latency of kvpool next to a raw NIO loopback baseline. */
final class BenchCommand implements Command {

  @Override
  public String name() {
    return "bench";
  }

  @Override
  public String usage() {
    return "bench [--master HOST:PORT] [--value-size 1MiB] [--clients 4] [--replicas 1] [--seconds 10] "
        + "[--storage-nodes 3] [--memory 512MiB] [--huge-pages none|transparent|explicit]";
  }

  @Override
  public String summary() {
    return "measure put/get GB/s, ops/s and latency against a raw NIO loopback baseline (and Redis if installed)";
  }

  @Override
  public Set<String> options() {
    return Set.of("master", "value-size", "clients", "replicas", "seconds", "storage-nodes", "memory",
        "huge-pages");
  }

  @Override
  public int run(CliArguments args, PrintStream out) throws Exception {
    args.positionals();
    long valueSize = args.size("value-size", "1MiB");
    if (valueSize < 8 || valueSize > (1 << 30)) {
      throw new UsageException("--value-size must be between 8 bytes and 1GiB, got " + valueSize);
    }
    int clients = args.integer("clients", 4, 1, 256);
    int replicas = args.integer("replicas", 1, 1, 16);
    int seconds = args.integer("seconds", 10, 2, 3600);
    int nodes = args.integer("storage-nodes", 3, 1, 64);
    long memory = args.size("memory", "512MiB");
    if (replicas > nodes && args.option("master").isEmpty()) {
      throw new UsageException("--replicas " + replicas + " needs at least as many --storage-nodes, got " + nodes);
    }
    Optional<HostPort> master = args.endpoint("master");
    Duration perTarget = Duration.ofSeconds(seconds);
    if (master.isPresent()) {
      out.println("kvpool bench against the pool at " + master.get());
      Benchmark.run(new Benchmark.Settings((int) valueSize, clients, replicas, perTarget, master.get().toString(),
          true, Map.of()), out);
      return 0;
    }
    LocalPoolConfig config = LocalPool.builder().poolId("bench").storageNodes(nodes)
        .memoryPerNode(Long.toString(memory))
        .storageOption("--huge-pages", args.choice("huge-pages", "none", LocalCommand.HUGE_PAGES)).build();
    out.println("kvpool bench: starting a local pool of " + nodes + " storage nodes x " + StatusTable.bytes(memory)
        + " (logs in " + config.logDir() + ")");
    try (LocalPool pool = config.start()) {
      // the pool is thrown away afterwards: no need to wait out read leases to remove the keys
      Map<String, List<ProcessHandle>> processes = new LinkedHashMap<>();
      processes.put("master", List.of(pool.master().handle()));
      processes.put("storage", pool.storageNodes().stream().map(n -> n.process().handle()).toList());
      Benchmark.run(new Benchmark.Settings((int) valueSize, clients, replicas, perTarget, pool.masterAddress(),
          false, processes), out);
    }
    return 0;
  }
}
