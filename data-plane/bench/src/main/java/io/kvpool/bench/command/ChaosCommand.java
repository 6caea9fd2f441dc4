package io.kvpool.bench.command;

import io.kvpool.bench.chaos.ChaosReport;
import io.kvpool.bench.chaos.ChaosSoak;
import io.kvpool.bench.chaos.FaultKind;
import io.kvpool.cli.Checks;
import io.kvpool.cli.CommandFailedException;
import io.kvpool.cli.Converters;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code kvpool bench chaos}: a chaos soak of a local pool; exit code 1 on any violation of its
 * goals.
 */
@Command(
    name = "chaos",
    description = {
      "Chaos soak: a local pool (masters electing on a Kubernetes Lease, storage nodes with warm-restart "
          + "memory files, R=2) under a steady mixed load (puts, gets, batches, removes) while a seeded schedule kills "
          + "(-9), freezes (SIGSTOP) and restarts masters and storage nodes, cuts connections mid-frame, takes servers' "
          + "body budgets and makes the pool evict: one fault at a time, each healed and the pool settled before the "
          + "next, every fault logged with its time and step. At the end every acknowledged, not removed object is "
          + "read back byte for byte, the leader's gauges are compared with a full scan, and every process's RSS, "
          + "descriptors and body budget with their start. Prints a summary; exit code 1 on any violation.",
      "The election runs on the API server of --kubeconfig (or $KUBECONFIG); without one, on the project's test "
          + "kube-apiserver (binaries from e2e/cluster/kube-binaries.sh; run from inside the kvpool checkout)."
    })
final class ChaosCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--minutes",
      paramLabel = "N",
      defaultValue = "30",
      description =
          "How long the load runs, warm-up included, 1..1440 (default: ${DEFAULT-VALUE}).")
  int minutes;

  @Option(
      names = "--seed",
      paramLabel = "N",
      converter = SeedConverter.class,
      description =
          "Seed of the fault schedule, the load and the values (decimal or 0x hex; default: random, "
              + "printed first).")
  Long seed;

  @Option(
      names = "--faults",
      paramLabel = "KIND[,KIND...]",
      split = ",",
      converter = FaultConverter.class,
      description =
          "Faults to inject (default: all): kill-node, restart-node, stop-node, kill-leader, kill-standby, "
              + "stop-leader, stop-standby, step-down, cut-connections, exhaust-budget, eviction-burst, "
              + "drain-node.")
  FaultKind[] faults;

  @Option(
      names = "--min-faults",
      paramLabel = "N",
      defaultValue = "0",
      description =
          "Go on past --minutes until this many faults were injected (default: ${DEFAULT-VALUE}), so that a "
              + "short run with a fixed seed always covers the same steps.")
  int minFaults;

  @Option(
      names = "--masters",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "Masters electing a leader, 1..7; 1: a sole master, no API server, no standby faults "
              + "(default: ${DEFAULT-VALUE}).")
  int masters;

  @Option(
      names = "--storage-nodes",
      paramLabel = "N",
      defaultValue = "4",
      description = "Storage nodes, at least replicas + 1 (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      defaultValue = "128MiB",
      converter = Converters.Size.class,
      description = "Memory per storage node (default: ${DEFAULT-VALUE}).")
  long memory;

  @Option(
      names = "--extents",
      description =
          "Clients put single values of R=1 through extents (protocol 2.4) instead of PUT_START; with"
              + " --replicas 1, and faults that keep every node serving its memory: not kill-node, nor"
              + " stop-node (a node frozen past its TTL is declared dead, and at R=1 its values are not"
              + " found until it registers again, which the soak counts as violations).")
  boolean extents;

  @Option(
      names = "--disk",
      paramLabel = "SIZE",
      defaultValue = "0",
      converter = Converters.Size.class,
      description =
          "A disk tier of this size per storage node, e.g. 256MiB (default: none): values evicted"
              + " from memory move there, and each eviction burst checks they stay readable.")
  long disk;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      defaultValue = "2",
      description = "Copies per object (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--value-size",
      paramLabel = "SIZE",
      defaultValue = "16KiB",
      converter = Converters.Size.class,
      description =
          "Mean value size: values are 0.5x to 1.5x of it, one in twenty 4x (default: ${DEFAULT-VALUE}).")
  long valueSize;

  @Option(
      names = "--objects",
      paramLabel = "N",
      defaultValue = "5000",
      description =
          "Live objects the load keeps around (default: ${DEFAULT-VALUE}); with the values they must fill "
              + "at most half the pool, so that a lost node's repairs never need eviction.")
  int objects;

  @Option(
      names = "--workers",
      paramLabel = "N",
      defaultValue = "4",
      description = "Load threads, each with its own client and keys (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(
      names = "--rate",
      paramLabel = "OPS",
      defaultValue = "150",
      description = "Calls per second of all workers together (default: ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--batch",
      paramLabel = "N",
      defaultValue = "16",
      description = "Most keys in a batch put or get (default: ${DEFAULT-VALUE}).")
  int batch;

  @Option(
      names = "--pause",
      paramLabel = "MIN..MAX",
      defaultValue = "2s..8s",
      description =
          "Steady load between one fault's settling and the next fault, drawn per step (default: "
              + "${DEFAULT-VALUE}).")
  String pause;

  @Option(
      names = "--warm-up",
      paramLabel = "DURATION",
      converter = Converters.Time.class,
      description =
          "Load before the first fault and the resource baselines (default: a fifth of the run, at most "
              + "60s).")
  Duration warmUp;

  @Option(
      names = "--election-lease",
      paramLabel = "DURATION",
      defaultValue = "8s",
      converter = Converters.Time.class,
      description = "Lease duration of the election (default: ${DEFAULT-VALUE}).")
  Duration electionLease;

  @Option(
      names = "--node-ttl",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = Converters.Time.class,
      description = "A storage node silent this long is dead (default: ${DEFAULT-VALUE}).")
  Duration nodeTtl;

  @Option(
      names = "--settle-timeout",
      paramLabel = "DURATION",
      defaultValue = "180s",
      converter = Converters.Time.class,
      description =
          "Longest the pool may take to settle after a fault; past it the soak fails (default: "
              + "${DEFAULT-VALUE}).")
  Duration settleTimeout;

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      descriptionKey = "KUBECONFIG",
      description =
          "Kube config of the API server to elect on (default: $KUBECONFIG; none: the test API server).")
  String kubeconfig;

  @Option(
      names = "--namespace",
      paramLabel = "NAME",
      defaultValue = "default",
      description =
          "Namespace of the election's Lease with --kubeconfig (default: ${DEFAULT-VALUE}).")
  String namespace;

  private final PrintStream out;

  ChaosCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    Checks.range(spec, "--minutes", minutes, 1, 1440);
    Checks.range(spec, "--min-faults", minFaults, 0, 10_000);
    Checks.range(spec, "--masters", masters, 1, 7);
    Checks.range(spec, "--replicas", replicas, 1, 8);
    Checks.range(spec, "--storage-nodes", nodes, replicas + 1, 64);
    Checks.requireMemory(spec, memory);
    if (valueSize < 64 || valueSize > (4 << 20)) {
      throw Checks.usage(spec, "--value-size must be between 64 bytes and 4MiB, got " + valueSize);
    }
    Checks.range(spec, "--objects", objects, 10, 10_000_000);
    Checks.range(spec, "--workers", workers, 1, 64);
    Checks.range(spec, "--rate", rate, 1, 100_000);
    Checks.range(spec, "--batch", batch, 2, 1000);
    double bytes = objects * valueSize * 1.15 * replicas;
    if (bytes > 0.5 * nodes * memory) {
      throw Checks.usage(
          spec,
          String.format(
              Locale.ROOT,
              "%d objects of about %d bytes x %d replicas (%.0f MiB) "
                  + "fill more than half of %d nodes x %d MiB: a lost node's repairs would need eviction; raise --memory "
                  + "or lower --objects",
              objects,
              valueSize,
              replicas,
              bytes / 1048576,
              nodes,
              memory >> 20));
    }
    Duration[] pauses = pauses();
    Checks.positive(spec, "--election-lease", electionLease);
    Checks.positive(spec, "--node-ttl", nodeTtl);
    Checks.positive(spec, "--settle-timeout", settleTimeout);
    Duration duration = Duration.ofMinutes(minutes);
    Duration warm =
        warmUp != null ? warmUp : Duration.ofSeconds(Math.min(60, duration.toSeconds() / 5));
    if (warm.compareTo(duration) >= 0) {
      throw Checks.usage(spec, "--warm-up must be shorter than the run (" + minutes + " min)");
    }
    Set<FaultKind> kinds =
        faults == null || faults.length == 0
            ? EnumSet.allOf(FaultKind.class)
            : EnumSet.copyOf(Arrays.asList(faults));
    if (masters == 1) {
      kinds.removeAll(
          EnumSet.of(FaultKind.KILL_STANDBY, FaultKind.STOP_STANDBY, FaultKind.STEP_DOWN));
      if (kinds.isEmpty()) {
        throw Checks.usage(
            spec,
            "--faults "
                + String.join(",", Arrays.stream(faults).map(FaultKind::cliName).toList())
                + " need standby masters; --masters is 1");
      }
    }
    long s = seed != null ? seed : ThreadLocalRandom.current().nextLong();
    ChaosReport report =
        ChaosSoak.run(
            new ChaosSoak.Settings(
                KubeconfigOption.file(spec, kubeconfig),
                namespace,
                duration,
                warm,
                s,
                masters,
                nodes,
                memory,
                disk,
                (int) valueSize,
                replicas,
                extents,
                workers,
                rate,
                objects,
                batch,
                kinds,
                minFaults,
                pauses[0],
                pauses[1],
                electionLease,
                nodeTtl,
                settleTimeout),
            out);
    report.print(out);
    out.flush();
    if (report.violations() > 0) {
      throw new CommandFailedException(
          report.violations()
              + " violations of the soak's goals (seed "
              + "0x"
              + Long.toHexString(s)
              + "; the summary above lists them)");
    }
    return 0;
  }

  private Duration[] pauses() {
    String[] parts = pause.split("\\.\\.");
    if (parts.length != 2) {
      throw Checks.usage(spec, "--pause takes MIN..MAX, e.g. 2s..8s; got " + pause);
    }
    Converters.Time time = new Converters.Time();
    Duration min;
    Duration max;
    try {
      min = time.convert(parts[0]);
      max = time.convert(parts[1]);
    } catch (TypeConversionException e) {
      throw Checks.usage(spec, "--pause: " + e.getMessage());
    }
    if (min.isNegative() || max.compareTo(min) < 0) {
      throw Checks.usage(spec, "--pause MIN..MAX needs 0 <= MIN <= MAX, got " + pause);
    }
    return new Duration[] {min, max};
  }

  /** A seed in decimal or {@code 0x} hex (as the soak prints it). */
  static final class SeedConverter implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      String v = value.strip().toLowerCase(Locale.ROOT);
      try {
        return v.startsWith("0x") ? Long.parseUnsignedLong(v.substring(2), 16) : Long.parseLong(v);
      } catch (NumberFormatException e) {
        throw new TypeConversionException(
            "'" + value + "' is not a seed: give a number, decimal or 0x hex");
      }
    }
  }

  /** A fault kind by its command-line name, e.g. {@code kill-node}. */
  static final class FaultConverter implements ITypeConverter<FaultKind> {
    @Override
    public FaultKind convert(String value) {
      try {
        return FaultKind.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
