package io.kvpool.bench.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * When the warm-up of {@code kvpool bench} stops: once a pass's CPU is nearly all request work, and
 * not before its second pass; or when its time is up, saying that the figures include compilation.
 */
class JitWarmUpTest {
  private static final Workload SMALL = Workload.single(16 << 10, 4);
  private static final Workload LARGE = Workload.single(1 << 20, 4);
  private static final Phase PHASE = new Phase(64L << 20, 1, 1);

  @Test
  void passesRunUntilTheCompilersTakeAtMostTheQuietShareOfOne() throws Exception {
    // each pass runs both workloads: JIT shares per pass 60 %, 20 %, 4 %, then it would stop
    ScriptedTarget t = new ScriptedTarget(60, 60, 20, 20, 4, 4, 1, 1);
    JitWarmUp.Outcome outcome = warmUp(Duration.ofMinutes(5)).run(t, quietOut());

    assertThat(outcome.passes()).isEqualTo(3);
    assertThat(outcome.lastJitShare()).isEqualTo(0.04);
    assertThat(outcome.quiet()).isTrue();
    assertThat(t.runs).containsExactly(SMALL, LARGE, SMALL, LARGE, SMALL, LARGE);
  }

  @Test
  void aQuietFirstPassIsStillFollowedByASecond() throws Exception {
    ScriptedTarget t = new ScriptedTarget(0, 0, 0, 0, 0, 0);
    assertThat(warmUp(Duration.ofMinutes(5)).run(t, quietOut()).passes()).isEqualTo(2);
  }

  @Test
  void whenTheTimeIsUpTheTargetIsMeasuredAsItIsAndTheLineSaysSo() throws Exception {
    ScriptedTarget t = new ScriptedTarget(50, 50, 40, 40, 30, 30);
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    JitWarmUp.Outcome outcome =
        warmUp(Duration.ZERO).run(t, new PrintStream(text, true, StandardCharsets.UTF_8));

    assertThat(outcome.passes()).isEqualTo(2);
    assertThat(outcome.quiet()).isFalse();
    assertThat(text.toString(StandardCharsets.UTF_8))
        .contains("scripted: warmed up in 2 untimed passes")
        .contains("took 40% of the CPU of the last pass")
        .contains("still compiling");
  }

  @Test
  void theShareWeighsEachPhaseByItsOperationsAndNoCpuReadCountsAsQuiet() {
    assertThat(JitWarmUp.jitShare(25, 100)).isEqualTo(0.25);
    assertThat(JitWarmUp.jitShare(0, 0)).isZero();
    assertThat(JitWarmUp.jitShare(120, 100)).isEqualTo(1.0);
  }

  private static JitWarmUp warmUp(Duration limit) {
    return new JitWarmUp(List.of(SMALL, LARGE), PHASE, limit);
  }

  private static PrintStream quietOut() {
    return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
  }

  /**
   * A target whose runs report the next scripted JIT percentage of 100 µs of CPU per operation, in
   * one phase of 1,000 operations.
   */
  private static final class ScriptedTarget implements Target {
    private final Deque<Integer> jitPercents = new ArrayDeque<>();
    final List<Workload> runs = new java.util.ArrayList<>();

    ScriptedTarget(int... jitPercents) {
      for (int p : jitPercents) {
        this.jitPercents.add(p);
      }
    }

    @Override
    public String name() {
      return "scripted";
    }

    @Override
    public Family family() {
      return Family.KVPOOL;
    }

    @Override
    public String description() {
      return "a scripted target";
    }

    @Override
    public boolean supports(Workload w) {
      return true;
    }

    @Override
    public List<Measurement> run(Workload w, int round, Phase phase) {
      runs.add(w);
      double jit = jitPercents.removeFirst();
      CpuPerOp cpu = new CpuPerOp(Map.of("storage", 100.0), Map.of("storage", jit), Set.of());
      return List.of(
          new Measurement(
              w.label(),
              "scripted",
              "put",
              round,
              1_000,
              1_000L * w.valueSize(),
              1_000_000_000L,
              new double[4],
              cpu,
              Map.of()));
    }

    @Override
    public void close() {}
  }
}
