package io.kvpool.bench.compare;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a workload on a target for the suite. A peer that fails is run again once; if it fails
 * again, that run is left out (its ratios then come from the other rounds) and the report says so.
 * A peer is not kvpool: memcached is a cache, free to drop what it stored, and it did so in 3 of
 * some 30 full runs on the build machines with 8 GiB of room (a 64 KiB batch key once, a 4 MiB
 * value twice), which stopped each of those runs after minutes. A failure of kvpool, or of a limit
 * of the machine, still stops the suite: kvpool losing a value it acknowledged is a bug.
 */
final class TargetRuns {
  private final Phase phase;
  private final PrintStream out;
  private final List<String> peerFailures = new ArrayList<>();

  TargetRuns(Phase phase, PrintStream out) {
    this.phase = phase;
    this.out = out;
  }

  /**
   * The measurements of one run of {@code w} on {@code t} (round 0: the warm-up); none if a peer
   * failed twice.
   */
  List<Measurement> run(Target t, Workload w, int round) throws Exception {
    String where = t.name() + " in " + w.label() + (round == 0 ? " (warm-up)" : ", round " + round);
    for (int attempt = 1; ; attempt++) {
      try {
        return t.run(w, round, phase);
      } catch (Exception e) {
        if (t.family() != Target.Family.PEER || e instanceof InterruptedException) {
          throw e;
        }
        String failure = where + ": " + e.getMessage();
        if (attempt == 2) {
          out.println("  " + failure + "; failed again, this run is left out");
          peerFailures.add(failure + " (failed again when run again: left out)");
          return List.of();
        }
        out.println("  " + failure + "; running it again");
        peerFailures.add(failure + " (run again)");
      }
    }
  }

  /** What peers failed, one line each, in the order it happened. */
  List<String> peerFailures() {
    return List.copyOf(peerFailures);
  }
}
