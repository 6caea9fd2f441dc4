package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.CliRun;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code kvpool bench} end to end on a local pool of real processes: each target is warmed up and
 * says how, then measured as a first fill, a put and a get, next to the machine's memory copy rate;
 * then the pool is filled and puts go on into it, each evicting ({@code --full}), none refused. It
 * checks the lines, never how fast anything was; the warm-up gets no time of its own, so it stops
 * after its two passes.
 */
class QuickBenchIT {

  @Test
  void aSmallRunWarmsUpEachTargetAndPrintsItsFillPutGetAndFull() {
    CliRun run =
        CliRun.of(
            "bench",
            "--value-size",
            "16KiB",
            "--clients",
            "2",
            "--seconds",
            "2",
            "--warm-up",
            "0s",
            "--storage-nodes",
            "1",
            "--memory",
            "32MiB",
            "--full");
    assertThat(run.code()).as("exit code; stderr: %s%nstdout: %s", run.err(), run.out()).isZero();
    // redis-server joins the targets when it is on PATH: its line is allowed, never required
    List<String> warmed =
        run.out()
            .lines()
            .filter(l -> l.contains(": warmed up in 2 "))
            .map(l -> l.split(":")[0])
            .toList();
    assertThat(warmed).as(run.out()).startsWith("nio-rr", "kvpool");
    assertThat(warmed).as(run.out()).isSubsetOf("nio-rr", "kvpool", "redis");
    for (String op : List.of("fill", "put", "get", "full")) {
      assertThat(run.out()).as(run.out()).containsPattern("(?m)^kvpool +" + op + " +[0-9.]+ ");
    }
    assertThat(run.out()).as(run.out()).containsPattern("(?m)^ratio kvpool full/put: [0-9.]+ ");
    assertThat(run.out()).as(run.out()).containsPattern("(?m)^memcpy +copy +[0-9.]+ ");
    assertThat(run.out())
        .as(run.out())
        .containsPattern("(?m)^ratio kvpool/memcpy fill, put, get: [0-9.]+, [0-9.]+, [0-9.]+ ");
  }
}
