package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code kvpool bench chaos} as a user runs it, in a short form for CI: one master, four storage nodes, R=2, two
 * minutes of mixed load with a fixed seed and the faults the pool is held to survive without a leader change: storage
 * nodes killed -9, restarted warm and frozen, a master frozen past the node TTL, connections cut mid-frame, body
 * budgets taken, eviction bursts; {@code --min-faults 8} has the run go on until eight were injected, however slow the
 * machine. The soak judges: every acknowledged object intact, removed ones gone, the gauges equal to a full scan,
 * RSS, descriptors and body budgets back where they started, every server answering; this test requires that it found
 * no violation. Faults that move leadership (the leader killed, frozen past its election lease, stepped down) are
 * left to the full soak ({@code ./kvpool bench chaos --minutes 30}): across a leader change a remove answered within
 * one heartbeat interval can come back (PROTOCOL.md, REMOVE; issue 28 keeps it open). Its whole output (every fault,
 * with time and step) is printed for the CI log.
 */
class ChaosSoakIT {

  @Test
  void aShortSoakEndsWithNoViolation() {
    CliRun run = CliRun.of("bench", "chaos", "--minutes", "2", "--min-faults", "8", "--seed", "5", "--warm-up", "20s",
        "--masters", "1", "--objects", "2000", "--rate", "100", "--node-ttl", "6s", "--pause", "1s..3s",
        "--faults", "kill-node,restart-node,stop-node,stop-leader,cut-connections,exhaust-budget,eviction-burst");
    System.out.println(run.out());
    System.err.println(run.err());
    assertThat(run.code()).as("exit code; stderr: %s (the output above has the soak's log and summary)", run.err())
        .isZero();
    assertThat(run.out()).contains("violations: 0", "lost 0   wrong 0", "readable again 0");
    Matcher total = Pattern.compile("(?m)^total\\s+(\\d+)").matcher(run.out());
    assertThat(total.find()).as("a faults total in the summary").isTrue();
    assertThat(Integer.parseInt(total.group(1))).as("faults injected").isGreaterThanOrEqualTo(8);
  }
}
