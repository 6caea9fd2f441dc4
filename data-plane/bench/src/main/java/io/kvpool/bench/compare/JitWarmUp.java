package io.kvpool.bench.compare;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * Untimed passes of a target's workload until its JVMs have compiled their request paths: a pass of
 * small values and one of the workload's own values over a few keys, again and again, until the JIT
 * compiler threads of the processes measured took, together, at most {@link #QUIET_SHARE} of their
 * CPU in the last pass, or the time allowed is up. A fixed number of passes was not enough: after
 * two passes the pool's compiler threads still took 36–63 % of the master's CPU and 8–68 % of the
 * nodes' in the timed puts of twelve runs on a 2-core machine, so the figures measured the warm-up
 * as much as the data path.
 */
final class JitWarmUp {
  /** The compiler threads' largest part of a pass's CPU that counts as warmed up. */
  static final double QUIET_SHARE = 0.05;

  /** Passes run whatever the JIT does: the first is where compilation starts. */
  private static final int MIN_PASSES = 2;

  private final List<Workload> workloads;
  private final Phase phase;
  private final Duration limit;

  /**
   * @param workloads run in turn in each pass, each for {@code phase}
   * @param limit no new pass starts after this long; the target is then measured as it is
   */
  JitWarmUp(List<Workload> workloads, Phase phase, Duration limit) {
    this.workloads = workloads;
    this.phase = phase;
    this.limit = limit;
  }

  /** What a warm-up came to: its passes, its time and the compilers' share of its last pass. */
  record Outcome(int passes, double seconds, double lastJitShare) {
    boolean quiet() {
      return lastJitShare <= QUIET_SHARE;
    }

    String describe(String target) {
      return String.format(
          Locale.ROOT,
          "%s: warmed up in %d untimed passes (%.0f s); the JIT compilers took %.0f%% of the CPU of"
              + " the last pass%s",
          target,
          passes,
          seconds,
          lastJitShare * 100,
          quiet()
              ? ""
              : " (still compiling when the warm-up's time was up: its figures include"
                  + " compilation, see the JIT column)");
    }
  }

  Outcome run(Target t, PrintStream out) throws Exception {
    long started = System.nanoTime();
    long deadline = started + limit.toNanos();
    int passes = 0;
    double share;
    do {
      double jit = 0;
      double all = 0;
      for (Workload w : workloads) {
        for (Measurement m : t.run(w, 0, phase)) {
          jit += m.ops() * sum(m.cpu().jitMicros().values());
          all += m.ops() * sum(m.cpu().micros().values());
        }
      }
      share = jitShare(jit, all);
      passes++;
    } while (passes < MIN_PASSES || (share > QUIET_SHARE && System.nanoTime() < deadline));
    Outcome outcome = new Outcome(passes, (System.nanoTime() - started) / 1e9, share);
    out.println(outcome.describe(t.name()));
    return outcome;
  }

  /** The compilers' part of a pass's CPU; none measured (no CPU read) counts as quiet. */
  static double jitShare(double jitMicros, double allMicros) {
    return allMicros <= 0 ? 0 : Math.min(1, jitMicros / allMicros);
  }

  private static double sum(Collection<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).sum();
  }
}
