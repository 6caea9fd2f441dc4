package io.kvpool.bench.command;

import io.kvpool.bench.capacity.MasterCapacity;
import io.kvpool.cli.Checks;
import io.kvpool.cli.Converters;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvpool bench master-capacity}: bytes per object, ops/s per core and recovery by size. */
@Command(
    name = "master-capacity",
    description = {
      "How far one master goes: for each size, a master JVM of --heap is filled with that many "
          + "metadata-only objects by synthetic storage nodes (the real REGISTER_NODE/REGISTER_INVENTORY "
          + "protocol), then prints the live heap per object after a full GC, put (PUT_START + the node's "
          + "COMMIT) and get (GET_REPLICAS) operations per second of master CPU, and the recovery of a new "
          + "master from the nodes' inventories after the first is killed; then the objects a 16 GiB heap "
          + "holds and a class histogram. See docs/scale-out.md for figures; --quick: a smoke run of about a minute."
    })
final class MasterCapacityCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--heap",
      paramLabel = "SIZE",
      defaultValue = "4g",
      description = "-Xmx of each master JVM, e.g. 512m or 6g (default: ${DEFAULT-VALUE}).")
  String heap;

  @Option(
      names = "--sizes",
      paramLabel = "N,...",
      defaultValue = "1M,10M,fit",
      split = ",",
      description =
          "Object counts (k and M allowed), in order; 'fit': as many as fill 85 percent of the heap at the bytes"
              + " per object measured before (default: ${DEFAULT-VALUE}).")
  List<String> sizes;

  @Option(
      names = "--storage-nodes",
      paramLabel = "N",
      defaultValue = "4",
      description =
          "Synthetic storage nodes sharing the objects, 1..64 (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--clients",
      paramLabel = "N",
      defaultValue = "4",
      description =
          "Client connections of the put and get phases, 1..64 (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--phase",
      paramLabel = "DURATION",
      defaultValue = "8s",
      converter = Converters.Time.class,
      description = "Length of the put phase and of the get phase (default: ${DEFAULT-VALUE}).")
  Duration phase;

  @Option(
      names = "--quick",
      description =
          "A smoke run: --heap 128m --sizes 20k,100k,fit --storage-nodes 2 --clients 2 --phase 1s.")
  boolean quick;

  private final PrintStream out;

  MasterCapacityCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    MasterCapacity.Settings settings =
        quick
            ? new MasterCapacity.Settings(
                "128m", List.of(20_000L, 100_000L, 0L), 2, 2, Duration.ofSeconds(1))
            : new MasterCapacity.Settings(heap, parsedSizes(), nodes, clients, phase);
    try {
      MasterCapacity.parseHeap(settings.heap());
    } catch (IllegalArgumentException e) {
      throw Checks.usage(spec, "--heap: " + e.getMessage());
    }
    Checks.range(spec, "--storage-nodes", settings.storageNodes(), 1, 64);
    Checks.range(spec, "--clients", settings.clients(), 1, 64);
    Checks.positive(spec, "--phase", settings.phase());
    MasterCapacity.run(settings, out);
    return 0;
  }

  private List<Long> parsedSizes() {
    List<Long> out = new ArrayList<>();
    for (String s : sizes) {
      String t = s.strip().toLowerCase(Locale.ROOT);
      if (t.equals("fit")) {
        if (out.isEmpty()) {
          throw Checks.usage(spec, "--sizes: 'fit' needs a measured size before it");
        }
        out.add(0L);
        continue;
      }
      long unit = t.endsWith("m") ? 1_000_000 : t.endsWith("k") ? 1_000 : 1;
      String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
      long n;
      try {
        n = Long.parseLong(digits) * unit;
      } catch (NumberFormatException e) {
        throw Checks.usage(spec, "--sizes: '" + s + "' is not a count such as 500k or 10M");
      }
      if (n < 1 || n > 1_000_000_000L) {
        throw Checks.usage(spec, "--sizes: " + s + " must be between 1 and 1000M objects");
      }
      out.add(n);
    }
    return out;
  }
}
