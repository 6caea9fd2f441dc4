package io.kvpool.bench.chaos;

import java.time.Duration;
import java.util.Locale;

/**
 * One step of a {@link FaultSchedule}: after {@code pauseBefore} of steady load, do {@code kind} to
 * {@code target}. {@code hold} is how long the fault lasts where that applies (a SIGSTOP, a budget
 * held, a restart delayed); {@code variant} seeds the fault's own choices (how each raw connection
 * ends, whether a killed node comes back at once or only once the master declared it dead), so that
 * a step is reproduced from the seed alone.
 */
public record Fault(
    int step, FaultKind kind, Target target, Duration hold, Duration pauseBefore, long variant) {

  /** One line for the log, e.g. {@code step 4: stop-node node-2 for 7.3 s}. */
  public String describe() {
    StringBuilder s = new StringBuilder("step " + step + ": " + kind.cliName());
    if (target.role() != Target.Role.NONE) {
      s.append(' ').append(target);
    }
    if (!hold.isZero()) {
      s.append(String.format(Locale.ROOT, " for %.1f s", hold.toMillis() / 1000.0));
    }
    return s.toString();
  }
}
