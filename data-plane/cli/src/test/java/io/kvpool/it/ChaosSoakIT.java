package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import io.kvpool.testkube.RealKubeApiServer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code kvpool bench chaos} as a user runs it, in a short form for CI: three masters electing on the test
 * kube-apiserver, four storage nodes, R=2, two minutes of mixed load with a fixed seed whose first eight steps are a
 * warm node restart, an eviction burst, the leader frozen past its election lease, connections to a standby cut
 * mid-frame, kill -9 of the leader, kill -9 of a storage node, a step-down and the leader's body budget taken;
 * {@code --min-faults 8} has the run go on until all eight were injected, however slow the machine. The soak judges:
 * every acknowledged object intact, removed ones gone, the gauges equal to a full scan, RSS, descriptors and body
 * budgets back where they started, every server answering; this test requires that it found no violation and that it
 * injected those faults. Its whole output (every fault, with time and step) is printed for the CI log.
 */
@ExtendWith(RealKubeApiServer.class)
class ChaosSoakIT {

  @Test
  void aShortSoakEndsWithNoViolation() {
    CliRun run = CliRun.of("bench", "chaos", "--minutes", "2", "--min-faults", "8", "--seed", "5", "--warm-up", "20s",
        "--objects", "2000", "--rate", "100", "--election-lease", "6s", "--node-ttl", "6s", "--pause", "1s..3s");
    System.out.println(run.out());
    System.err.println(run.err());
    assertThat(run.code()).as("exit code; stderr: %s (the output above has the soak's log and summary)", run.err())
        .isZero();
    assertThat(run.out()).contains("violations: 0", "lost 0   wrong 0", "readable again 0");
    Matcher total = Pattern.compile("(?m)^total\\s+(\\d+)").matcher(run.out());
    assertThat(total.find()).as("a faults total in the summary").isTrue();
    assertThat(Integer.parseInt(total.group(1))).as("faults injected").isGreaterThanOrEqualTo(8);
    assertThat(run.out()).contains("step 5: kill-leader", "step 6: kill-node", "step 8: exhaust-budget");
  }
}
