package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code kvpool bench ramp --quick} end to end: a real master and storage node processes filled by
 * the real client, one empty node started while puts go on. It checks what the bench checks itself
 * (every put acknowledged, the new node received replicas, as counted from the nodes' own metrics)
 * and that the table and the summary were printed, never the ratio: that is a measurement.
 */
class RampBenchIT {

  /**
   * With {@code --ramp both} the same run twice, the master's placement ramp on, then off, and the
   * two largest ratios side by side.
   */
  @Test
  void quickRunPrintsEachNodesShareAndPassesItsChecks() {
    CliRun run = CliRun.of("bench", "ramp", "--quick", "--ramp", "both");
    System.out.println(run.out());
    assertThat(run.code()).as("exit code; stderr: %s%nstdout: %s", run.err(), run.out()).isZero();
    List<String> rows =
        run.out().lines().filter(l -> l.matches("^[1-4]\\s+\\d+\\.\\.\\d+\\s+node-\\d.*")).toList();
    assertThat(rows).as(run.out()).hasSize(2 * 4 * 4); // 2 runs x 4 intervals x 4 nodes
    assertThat(run.out())
        .contains("(placement ramp on)", "(placement ramp off)")
        .containsPattern(
            "ramp on vs off: ramp on: max share/fair share \\S+ \\(node-\\d, interval \\d\\);"
                + " ramp off: max share/fair share \\S+ \\(node-\\d, interval \\d\\)");
    assertThat(rows).as(run.out()).anyMatch(l -> l.contains("node-4"));
    assertThat(run.out())
        .contains("max share/fair share after the join: ")
        .containsPattern("check: every put acknowledged \\(\\d+ acknowledged, 0 failed\\): ok")
        .containsPattern(
            "check: the new node node-4 received replicas \\(\\d+ of the \\d+ measured\\): ok");
  }
}
