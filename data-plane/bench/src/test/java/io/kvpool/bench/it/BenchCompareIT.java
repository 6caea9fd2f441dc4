package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvpool.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvpool bench compare} as a user runs it, in its quick form: a local pool of real
 * processes, a real memcached, the machine's limits, and the report it writes. Figures are not
 * checked (tests never fail on timing); what is checked is that every target selected ran, on every
 * workload it supports, and that the report carries the tables and goals a full run's has.
 */
class BenchCompareIT {
  private static final Set<String> TARGETS =
      Set.of(
          "kvpool",
          "kvpool-nobatch",
          "kvpool-extents",
          "kvpool-sendfile",
          "kvpool-one-node",
          "nio-rr",
          "memcached",
          "loopback-stream",
          "memcpy",
          "kvpool-master");

  @TempDir Path out;

  @Test
  void aQuickRunMeasuresEveryTargetSelectedAndWritesTheReport() throws Exception {
    CliRun run =
        CliRun.of(
            "bench",
            "compare",
            "--quick",
            "--no-install",
            "--targets=" + String.join(",", TARGETS),
            "--out=" + out,
            "--venv=" + out.resolve("no-venv"));
    assertThat(run.code()).as("exit code; output:%n%s%nstderr:%n%s", run.out(), run.err()).isZero();

    JsonNode results = new ObjectMapper().readTree(out.resolve("benchmarks/results.json").toFile());
    assertThat(results.get("skipped").size())
        .as("skipped targets: %s", results.get("skipped"))
        .isZero();
    Set<String> measured = new TreeSet<>();
    Set<String> kvpoolWorkloads = new TreeSet<>();
    for (JsonNode m : results.get("measurements")) {
      assertThat(m.get("ops").asLong()).as("operations of %s", m).isPositive();
      measured.add(m.get("target").asText());
      if (m.get("target").asText().equals("kvpool")) {
        kvpoolWorkloads.add(m.get("workload").asText() + " " + m.get("op").asText());
      }
    }
    // memcached may drop a value it acknowledged (it is a cache); the suite then runs it again, and
    // leaves that run
    // out if it fails twice, so memcached is required to have run, not to have run every workload
    assertThat(measured).containsExactlyInAnyOrderElementsOf(TARGETS);
    assertThat(kvpoolWorkloads)
        .contains(
            "single-1MiB-c8 put",
            "single-1MiB-c8 get",
            "batch-128x64KiB-c4 get",
            "single-64KiB-c4 get",
            "single-4MiB-c4 put");

    String report = Files.readString(out.resolve("benchmarks.md"));
    assertThat(report)
        .contains(
            "## Headline: kvpool ÷ peer in the same round",
            "## Goals (issues 15 and 34)",
            "## Master metadata throughput",
            "| 1MiB x 8 | get |",
            "with sendfile (kvpool-sendfile, off by default) 1MiB x 1 ",
            "a pool of one storage node (kvpool-one-node, one server process as memcached's) 1MiB x 1 ",
            "kvpool ÷ kvpool-one-node");
    assertThat(run.out()).contains("report: " + out.resolve("benchmarks.md"));
  }

  @Test
  void theDiskTierWorkloadInItsQuickFormRunsBothPoolsAndPrintsItsGoals() throws Exception {
    CliRun run =
        CliRun.of(
            "bench",
            "compare",
            "--quick",
            "--no-install",
            "--workloads=disk-3x",
            "--out=" + out,
            "--venv=" + out.resolve("no-venv"));
    assertThat(run.code()).as("exit code; output:%n%s%nstderr:%n%s", run.out(), run.err()).isZero();

    // figures are not checked, only that every pass ran and every goal is printed
    String report = Files.readString(out.resolve("benchmarks-disk-3x.md"));
    assertThat(report)
        .as(report)
        .contains(
            "| kvpool, disk tier | put 3x |",
            "| kvpool, disk tier | get 3x |",
            "| kvpool, disk tier | disk reads, cold (1 thread) |",
            "| kvpool, disk tier | disk reads, cold (2 threads) |",
            "| kvpool, disk tier | memory reads, newest quarter (2 threads) |",
            "| kvpool disk tier alone (in-process, no client or socket) | page cache reads of every record (2 threads)",
            "| kvpool disk tier alone (in-process, no client or socket) | cold reads of every record (2 threads)",
            "| fio O_DIRECT | sequential 1MiB reads (2 jobs, psync) |",
            "| kvpool, disk tier | get 3x after node-2 restarted (SIGTERM, ",
            "| kvpool, disk tier | put 3x -> 5x (du sampled) |",
            "| kvpool, no disk tier | get 3x |",
            "| every get hits with a working set 3x memory |",
            "| every get hits with a working set 3x memory after a storage node restart |",
            "| 1 MiB disk-tier reads >= 0.8x fio O_DIRECT |",
            "Mooncake Store with SSD offload: ")
        .containsPattern(
            "\\| du of \\S+'s tier <= its cap at every sample of a fill to 5x memory \\|");
    assertThat(run.out()).contains("disk-3x report: " + out.resolve("benchmarks-disk-3x.md"));
  }

  @Test
  void theEventsWorkloadInItsQuickFormMeasuresBothPoolsAndPrintsTheRatio() throws Exception {
    CliRun run =
        CliRun.of(
            "bench",
            "compare",
            "--quick",
            "--no-install",
            "--workloads=events",
            "--out=" + out,
            "--venv=" + out.resolve("no-venv"));
    assertThat(run.code()).as("exit code; output:%n%s%nstderr:%n%s", run.out(), run.err()).isZero();

    // figures are not checked, only that both pools ran every round, the subscriber followed the
    // events pool, and the goal is printed
    String report = Files.readString(out.resolve("benchmarks-events.md"));
    assertThat(report)
        .as(report)
        .containsPattern("\\| 1 \\| off \\| [1-9]\\d* \\|")
        .containsPattern("\\| 1 \\| on \\| [1-9]\\d* \\|")
        .containsPattern("\\| 2 \\| off \\| [1-9]\\d* \\|")
        .containsPattern("\\| 2 \\| on \\| [1-9]\\d* \\|")
        .containsPattern("The subscriber applied [1-9]\\d* batches")
        .contains("it held exactly as many block hashes as the master had objects")
        .containsPattern(
            "\\| put ops/s with KV events on \\(a subscriber reading\\) >= 0\\.95x off \\|"
                + " (met|NOT met) \\| median of the rounds' on / off \\d+\\.\\d\\d \\(rounds"
                + " \\d+\\.\\d\\d, \\d+\\.\\d\\d\\); median on \\d+, median off \\d+ \\|");
    assertThat(run.out()).contains("events report: " + out.resolve("benchmarks-events.md"));
  }
}
