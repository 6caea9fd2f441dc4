package io.kvpool.bench.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * CPU microseconds per operation of a phase, by process group, and how much of it the JVMs' JIT
 * compiler threads took.
 *
 * @param micros by group: every thread of its processes
 * @param jitMicros by group, for the groups whose processes have compiler threads (the JVMs): the
 *     part of {@code micros} those threads took
 * @param jitLowerBound groups where a compiler thread exited during the phase, so that their {@code
 *     jitMicros} misses what it used (see {@link CompilerThreads.CompileTime})
 */
record CpuPerOp(
    Map<String, Double> micros, Map<String, Double> jitMicros, Set<String> jitLowerBound) {

  /** "group µs" for each group, with "(JIT µs)" after each JVM's: "storage 100 (JIT 45)". */
  String byProcess() {
    List<String> parts = new ArrayList<>();
    micros.forEach(
        (group, us) ->
            parts.add(label(group, us, jitMicros.get(group), jitLowerBound.contains(group))));
    return String.join(", ", parts);
  }

  /**
   * One group's figure; {@code jit} null for a process that is not a JVM, {@code lowerBound} marks
   * it "&gt;=".
   */
  static String label(String group, double micros, Double jit, boolean lowerBound) {
    String figure = String.format(Locale.ROOT, "%s %.0f", group, micros);
    return jit == null
        ? figure
        : String.format(Locale.ROOT, "%s (JIT %s%.0f)", figure, lowerBound ? ">=" : "", jit);
  }
}
