package io.kvpool.bench.command;

import io.kvpool.bench.ramp.RampBench;
import io.kvpool.bench.ramp.RampOutcome;
import io.kvpool.bench.ramp.RampSettings;
import io.kvpool.cli.Checks;
import io.kvpool.cli.Converters;
import io.kvpool.master.PlacementRamp;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code kvpool bench ramp}: the share of puts an empty node takes when it joins a loaded pool. */
@Command(
    name = "ramp",
    description = {
      "A local pool (a master and --storage-nodes storage node processes) is filled to --fill, then one"
          + " empty storage node joins while --rate puts/s go on; for every --interval it prints each"
          + " node's replicas (counted from the bytes each node wrote, its /metrics), its share, its fair"
          + " share (capacity among the ALIVE nodes) and their ratio, then the largest ratio against"
          + " issue 33's goal (at most 2x in any 10 s interval). Exit code 1 only when a put failed or"
          + " the new node received nothing; --quick: a smoke run of about a minute; --ramp both:"
          + " the run with the master's placement ramp on, then off."
    })
final class RampBenchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--storage-nodes",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "Storage nodes filled before the new one joins, 1..16 (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      defaultValue = "512MiB",
      converter = Converters.Size.class,
      description = "Memory of every storage node (default: ${DEFAULT-VALUE}).")
  long memory;

  @Option(
      names = "--value-size",
      paramLabel = "SIZE",
      defaultValue = "128KiB",
      converter = Converters.Size.class,
      description = "Bytes per value, 4KiB..4MiB (default: ${DEFAULT-VALUE}).")
  long valueSize;

  @Option(
      names = "--clients",
      paramLabel = "N",
      defaultValue = "4",
      description = "Client threads, 1..32 (default: ${DEFAULT-VALUE}).")
  int clients;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      defaultValue = "1",
      description = "Copies per value, 1..--storage-nodes (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--fill",
      paramLabel = "PERCENT",
      defaultValue = "50",
      description =
          "How full the first nodes are when the new one joins, 0..85 (default: ${DEFAULT-VALUE}).")
  int fillPercent;

  @Option(
      names = "--rate",
      paramLabel = "PUTS",
      defaultValue = "50",
      description = "Puts per second while the node joins, 1..10000 (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--interval",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Converters.Time.class,
      description = "Length of one measured interval (default: ${DEFAULT-VALUE}).")
  Duration interval;

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      defaultValue = "150s",
      converter = Converters.Time.class,
      description = "How long the shares are measured after the join (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(
      names = "--ramp",
      paramLabel = "on|off|both",
      defaultValue = "on",
      description =
          "The master's placement ramp (--placement-ramp): on, off, or both: one run with it on,"
              + " then one with it off, and the two largest ratios side by side (default:"
              + " ${DEFAULT-VALUE}).")
  RampRuns ramp;

  @Option(
      names = "--quick",
      description = "A smoke run: --memory 128MiB --value-size 64KiB --interval 3s --duration 12s.")
  boolean quick;

  private final PrintStream out;

  RampBenchCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws InterruptedException {
    if (quick) {
      memory = 128L << 20;
      valueSize = 64L << 10;
      interval = Duration.ofSeconds(3);
      duration = Duration.ofSeconds(12);
    }
    Checks.range(spec, "--storage-nodes", nodes, 1, 16);
    Checks.requireMemory(spec, memory);
    if (valueSize < 4096 || valueSize > (4L << 20)) {
      throw Checks.usage(spec, "--value-size must be between 4KiB and 4MiB, got " + valueSize);
    }
    if (valueSize * 16 > memory) {
      throw Checks.usage(
          spec,
          "--memory "
              + memory
              + " holds fewer than 16 values of --value-size "
              + valueSize
              + ": use more memory or smaller values");
    }
    Checks.range(spec, "--clients", clients, 1, 32);
    Checks.range(spec, "--replicas", replicas, 1, nodes);
    Checks.range(spec, "--fill", fillPercent, 0, 85);
    Checks.range(spec, "--rate", rate, 1, 10_000);
    Checks.positive(spec, "--interval", interval);
    Checks.positive(spec, "--duration", duration);
    if (interval.toSeconds() < 1 || duration.compareTo(interval) < 0) {
      throw Checks.usage(
          spec, "--interval must be at least 1s and --duration at least one --interval");
    }
    RampSettings settings =
        new RampSettings(
            nodes,
            memory,
            (int) valueSize,
            clients,
            replicas,
            fillPercent / 100.0,
            rate,
            interval,
            duration,
            PlacementRamp.ON);
    List<RampOutcome> outcomes = new ArrayList<>();
    for (PlacementRamp r : ramp.ramps()) {
      if (!outcomes.isEmpty()) {
        out.println();
      }
      outcomes.add(RampBench.run(settings.withRamp(r), out));
    }
    if (outcomes.size() > 1) {
      out.println();
      out.println(
          "ramp on vs off: "
              + outcomes.stream().map(RampOutcome::line).collect(Collectors.joining("; ")));
    }
    return outcomes.stream().mapToInt(RampOutcome::exitCode).max().orElse(0);
  }

  /** Which runs {@code --ramp} asks for. */
  enum RampRuns {
    ON(PlacementRamp.ON),
    OFF(PlacementRamp.OFF),
    BOTH(PlacementRamp.ON, PlacementRamp.OFF);

    private final List<PlacementRamp> ramps;

    RampRuns(PlacementRamp... ramps) {
      this.ramps = List.of(ramps);
    }

    List<PlacementRamp> ramps() {
      return ramps;
    }
  }
}
