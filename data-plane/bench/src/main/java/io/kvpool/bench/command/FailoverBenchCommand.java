package io.kvpool.bench.command;

import io.kvpool.bench.FailoverBenchmark;
import io.kvpool.cli.Checks;
import io.kvpool.cli.Converters;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvpool bench failover}: leader kill -9 → first put and → every object readable, over
 * several runs.
 */
@Command(
    name = "failover",
    description = {
      "Measure master failover: a local pool of masters electing a leader on a Kubernetes Lease and "
          + "storage nodes, filled with objects; kill -9 of the leader, again and again (the killed master is "
          + "restarted each time). Prints, per run, leader kill -> first successful put and leader kill -> every "
          + "object read back (CRC-checked), then median and max.",
      "The election runs on the API server of --kubeconfig (or $KUBECONFIG); without one, on the project's test "
          + "kube-apiserver (binaries from e2e/cluster/kube-binaries.sh; run from inside the kvpool checkout)."
    })
final class FailoverBenchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

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

  @Option(
      names = "--runs",
      paramLabel = "N",
      defaultValue = "5",
      description = "Leader kills, 1..100 (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(
      names = "--objects",
      paramLabel = "N",
      defaultValue = "10000",
      description = "Objects stored before the first kill (default: ${DEFAULT-VALUE}).")
  int objects;

  @Option(
      names = "--value-size",
      paramLabel = "SIZE",
      defaultValue = "2KiB",
      converter = Converters.Size.class,
      description = "Bytes per object (default: ${DEFAULT-VALUE}).")
  long valueSize;

  @Option(
      names = "--replicas",
      paramLabel = "N",
      defaultValue = "2",
      description = "Copies per object (default: ${DEFAULT-VALUE}).")
  int replicas;

  @Option(
      names = "--masters",
      paramLabel = "N",
      defaultValue = "3",
      description = "Masters electing a leader, 2..7 (default: ${DEFAULT-VALUE}).")
  int masters;

  @Option(
      names = "--storage-nodes",
      paramLabel = "N",
      defaultValue = "3",
      description = "Storage nodes (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--memory",
      paramLabel = "SIZE",
      defaultValue = "256MiB",
      converter = Converters.Size.class,
      description = "Memory per storage node (default: ${DEFAULT-VALUE}).")
  long memory;

  @Option(
      names = "--election-lease",
      paramLabel = "DURATION",
      defaultValue = "8s",
      converter = Converters.Time.class,
      description =
          "Lease duration of the election, as a deployed pool's KVPOOL_ELECTION_LEASE_DURATION "
              + "(default: ${DEFAULT-VALUE}).")
  Duration electionLease;

  @Option(
      names = "--timeout",
      paramLabel = "DURATION",
      defaultValue = "120s",
      converter = Converters.Time.class,
      description =
          "Longest a run may take to its first put and to every object read back (default: "
              + "${DEFAULT-VALUE}).")
  Duration timeout;

  private final PrintStream out;

  FailoverBenchCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    Checks.range(spec, "--runs", runs, 1, 100);
    Checks.range(spec, "--objects", objects, 1, 10_000_000);
    if (valueSize < 1 || valueSize > (64 << 20)) {
      throw Checks.usage(spec, "--value-size must be between 1 byte and 64MiB, got " + valueSize);
    }
    Checks.range(spec, "--masters", masters, 2, 7);
    Checks.range(spec, "--storage-nodes", nodes, 1, 64);
    Checks.range(spec, "--replicas", replicas, 1, nodes);
    Checks.requireMemory(spec, memory);
    if ((double) objects * valueSize * replicas > 0.8 * nodes * memory) {
      throw Checks.usage(
          spec,
          objects
              + " objects of "
              + valueSize
              + " bytes x "
              + replicas
              + " replicas do not fit"
              + " below the eviction watermark of "
              + nodes
              + " nodes x "
              + memory
              + " bytes; raise --memory");
    }
    Checks.positive(spec, "--election-lease", electionLease);
    Checks.positive(spec, "--timeout", timeout);
    FailoverBenchmark.run(
        new FailoverBenchmark.Settings(
            KubeconfigOption.file(spec, kubeconfig),
            namespace,
            masters,
            nodes,
            memory,
            objects,
            (int) valueSize,
            replicas,
            runs,
            electionLease,
            timeout),
        out);
    return 0;
  }
}
