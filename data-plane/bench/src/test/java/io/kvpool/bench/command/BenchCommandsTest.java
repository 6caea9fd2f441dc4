package io.kvpool.bench.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code kvpool bench} and its subcommands, added to the {@code kvpool} command through {@link
 * BenchPlugin}, run in-process: listed in the help, and every wrong option is one line on stderr
 * with exit code 2 (or 1 for a file that is not there) before anything starts.
 */
class BenchCommandsTest {

  @Test
  void kvpoolListsBenchAndEachBenchCommandHasItsOwnHelp() {
    CliRun run = CliRun.of("--help");
    assertThat(run.code()).isZero();
    assertThat(run.out()).contains("demo", "local", "put", "get", "rm", "stat", "bench");
    assertThat(CliRun.of().err()).contains("Commands:", "put", "bench");
    assertThat(CliRun.of("bench", "--help").out())
        .contains("--value-size", "--clients", "failover", "chaos", "compare");
    assertThat(CliRun.of("bench", "failover", "--help").out())
        .contains("--kubeconfig", "--runs", "--election-lease");
    assertThat(CliRun.of("bench", "chaos", "--help").out())
        .contains("--minutes", "--seed", "--faults", "--storage-nodes", "--value-size");
    assertThat(CliRun.of("bench", "compare", "--help").out())
        .contains("--rounds", "--targets", "--working-set");
    assertThat(CliRun.of("bench", "master-capacity", "--help").out())
        .contains("--heap", "--sizes", "--quick");
    assertThat(CliRun.of("bench", "ramp", "--help").out())
        .contains("--fill", "--rate", "--interval", "--duration", "--quick", "--ramp");
  }

  @Test
  void benchRampChecksItsOptionsBeforeStartingAnything() {
    CliRun.of("bench", "ramp", "--replicas", "4")
        .failedWith(2, "--replicas must be between 1 and 3, got 4");
    CliRun.of("bench", "ramp", "--fill", "90").failedWith(2, "--fill must be between 0 and 85");
    CliRun.of("bench", "ramp", "--value-size", "1KiB")
        .failedWith(2, "--value-size must be between 4KiB and 4MiB");
    CliRun.of("bench", "ramp", "--memory", "1MiB", "--value-size", "128KiB")
        .failedWith(2, "holds fewer than 16 values of --value-size");
    CliRun.of("bench", "ramp", "--interval", "20s", "--duration", "10s")
        .failedWith(2, "--duration at least one --interval");
    CliRun.of("bench", "ramp", "--ramp", "sideways").failedWith(2, "--ramp");
  }

  @Test
  void benchMasterCapacityChecksItsOptionsBeforeStartingAnything() {
    CliRun.of("bench", "master-capacity", "--sizes", "fit")
        .failedWith(2, "--sizes: 'fit' needs a measured size before it");
    CliRun.of("bench", "master-capacity", "--sizes", "1M,lots")
        .failedWith(2, "--sizes: 'lots' is not a count such as 500k or 10M");
    CliRun.of("bench", "master-capacity", "--sizes", "0")
        .failedWith(2, "--sizes: 0 must be between 1 and 1000M objects");
    CliRun.of("bench", "master-capacity", "--heap", "big").failedWith(2, "--heap: heap big");
    CliRun.of("bench", "master-capacity", "--clients", "0")
        .failedWith(2, "--clients must be between 1 and 64, got 0");
  }

  @Test
  void benchSizesAndCountsAreTypedAndChecked() {
    CliRun.of("bench", "--clients", "many").failedWith(2, "--clients", "many");
    CliRun.of("bench", "--value-size", "4")
        .failedWith(2, "--value-size must be between 8 bytes and 16MiB");
    CliRun.of("bench", "--clients", "9").failedWith(2, "--clients must be between 1 and 8");
    CliRun.of("bench", "--memory", "1KiB").failedWith(2, "--memory must be at least 4KiB");
    CliRun.of("bench", "--master", "127.0.0.1:1", "--full")
        .failedWith(2, "--full evicts everything a pool holds");
  }

  @Test
  void benchFailoverChecksItsOptionsBeforeStartingAnything() {
    CliRun.of("bench", "failover", "--runs", "0")
        .failedWith(2, "--runs must be between 1 and 100, got 0");
    CliRun.of("bench", "failover", "--kubeconfig", "/nonexistent/kubeconfig")
        .failedWith(1, "kvpool bench failover: kube config /nonexistent/kubeconfig: no such file");
    CliRun.of(Map.of("KUBECONFIG", "/nonexistent/kubeconfig"), "bench", "failover")
        .failedWith(1, "kube config /nonexistent/kubeconfig: no such file");
    CliRun.of("bench", "failover", "--replicas", "4")
        .failedWith(2, "--replicas must be between 1 and 3");
    CliRun.of("bench", "failover", "--objects", "1000000", "--value-size", "64KiB")
        .failedWith(2, "do not fit", "raise --memory");
  }

  @Test
  void benchChaosChecksItsOptionsBeforeStartingAnything() {
    CliRun.of("bench", "chaos", "--minutes", "0")
        .failedWith(2, "--minutes must be between 1 and 1440, got 0");
    CliRun.of("bench", "chaos", "--faults", "kill-node,unplug-the-rack")
        .failedWith(2, "unknown fault " + "'unplug-the-rack'", "kill-node");
    CliRun.of("bench", "chaos", "--seed", "banana").failedWith(2, "is not a seed");
    CliRun.of("bench", "chaos", "--storage-nodes", "2")
        .failedWith(2, "--storage-nodes must be between 3 and 64");
    CliRun.of("bench", "chaos", "--objects", "100000")
        .failedWith(2, "fill more than half", "raise --memory");
    CliRun.of("bench", "chaos", "--pause", "5s").failedWith(2, "--pause takes MIN..MAX");
    CliRun.of("bench", "chaos", "--masters", "1", "--faults", "stop-standby")
        .failedWith(2, "need standby masters; --masters is 1");
    CliRun.of("bench", "chaos", "--kubeconfig", "/nonexistent/kubeconfig")
        .failedWith(1, "kvpool bench chaos: kube config /nonexistent/kubeconfig: no such file");
  }
}
