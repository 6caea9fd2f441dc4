package io.kvpool.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The bounds the goals table prints next to two goals: how far a put with one master request can
 * reach against memcached, from the CPU figures of the same round, and how close a bare
 * request/response comes to the loopback stream.
 */
class ReportCeilingTest {
  private static final Workload SMALL_PUTS = Workload.single(64 << 10, 4);
  private static final Workload EXISTS = Workload.meta(Workload.MetaOp.EXISTS, 4);
  private static final Workload ONE_CONNECTION = Workload.single(1 << 20, 1);

  private final List<Measurement> results = new ArrayList<>();

  @Test
  void aPutWithOneMasterRequestReachesMemcachedsCpuOverAWriteAndARequest() {
    // round 1: memcached 45 µs, a bare write 46 and an Exists 21.5: 45 / 67.5
    add(SMALL_PUTS, "memcached", "put", 1, Map.of("client", 22.0, "memcached", 23.0));
    add(SMALL_PUTS, "nio-rr", "put", 1, Map.of("client", 46.0));
    add(EXISTS, "kvpool-master", "op", 1, Map.of("master", 11.0, "client", 10.5));
    // round 2: 60 / (40 + 20)
    add(SMALL_PUTS, "memcached", "put", 2, Map.of("client", 30.0, "memcached", 30.0));
    add(SMALL_PUTS, "nio-rr", "put", 2, Map.of("client", 40.0));
    add(EXISTS, "kvpool-master", "op", 2, Map.of("master", 10.0, "client", 10.0));
    // round 3 has no Exists figure: left out, not taken as zero
    add(SMALL_PUTS, "memcached", "put", 3, Map.of("client", 30.0, "memcached", 30.0));
    add(SMALL_PUTS, "nio-rr", "put", 3, Map.of("client", 40.0));

    Report.Spread ceiling = report(3).withOneMasterRequest(SMALL_PUTS);

    assertThat(ceiling.n()).isEqualTo(2);
    assertThat(ceiling.min()).isCloseTo(45 / 67.5, within(1e-9));
    assertThat(ceiling.max()).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void theGoalsTableNamesBothBoundsAndTheGoalStaysUnmetBelowIt() {
    add(SMALL_PUTS, "memcached", "put", 1, Map.of("client", 22.0, "memcached", 23.0));
    add(SMALL_PUTS, "nio-rr", "put", 1, Map.of("client", 46.0));
    add(
        SMALL_PUTS,
        "kvpool",
        "put",
        1,
        0.5,
        Map.of("client", 37.0, "master", 24.0, "storage", 39.0));
    add(EXISTS, "kvpool-master", "op", 1, Map.of("master", 11.0, "client", 10.5));
    add(ONE_CONNECTION, "loopback-stream", "get", 1, 4.0, Map.of("client+server", 300.0));
    add(ONE_CONNECTION, "nio-rr", "get", 1, 3.4, Map.of("client", 350.0));
    add(ONE_CONNECTION, "kvpool", "get", 1, 3.0, Map.of("client", 150.0, "storage", 250.0));

    List<Report.Goal> goals = report(1).goals();

    Report.Goal small = goal(goals, "64 KiB put with 4 clients");
    assertThat(small.measured())
        .contains("reaches here while CPU sets throughput: 0.67 (memcached's CPU per put");
    assertThat(small.met()).isFalse();
    Report.Goal stream = goal(goals, "1 MiB get on one connection");
    assertThat(stream.measured())
        .isEqualTo("0.75; a bare request/response (nio-rr, no protocol) in the same rounds 0.85");
    assertThat(stream.met()).isFalse();
  }

  private static Report.Goal goal(List<Report.Goal> goals, String prefix) {
    return goals.stream().filter(g -> g.text().startsWith(prefix)).findFirst().orElseThrow();
  }

  private void add(Workload w, String target, String op, int round, Map<String, Double> cpu) {
    add(w, target, op, round, 1.0, cpu);
  }

  /** A phase of one second that moved {@code gigabytes} (ops for a metadata workload). */
  private void add(
      Workload w, String target, String op, int round, double gigabytes, Map<String, Double> cpu) {
    long bytes = w.bytesPerOp() == 0 ? 0 : (long) (gigabytes * 1e9);
    long ops = w.bytesPerOp() == 0 ? 1000 : bytes / w.bytesPerOp();
    results.add(
        new Measurement(
            w.id(),
            target,
            op,
            round,
            ops,
            bytes,
            1_000_000_000L,
            new double[] {1, 2, 3, 4},
            new CpuPerOp(cpu, Map.of(), Set.of()),
            Map.of()));
  }

  private Report report(int rounds) {
    CompareSettings settings =
        CompareSettings.of(
            rounds,
            64L << 20,
            1.0,
            1.0,
            false,
            Set.of(),
            Path.of("."),
            Path.of("venv"),
            Path.of("out"),
            false,
            false);
    return new Report(settings, List.of(), Map.of(), List.of(), results, List.of(), Duration.ZERO);
  }
}
