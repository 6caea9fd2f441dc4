package io.kvpool.bench.chaos;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The soak's log and its findings: every line stamped with the time since the start and, for what
 * the load sees, the fault step under way, so that a finding can be traced to the step (and
 * replayed with the seed). A violation is anything the soak's goals forbid; the run exits non-zero
 * when there is one. Thread-safe.
 */
public final class Journal {
  /** Details kept per category; the count goes on. */
  private static final int DETAILS_PER_CATEGORY = 20;

  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private final Map<String, List<String>> violations = new LinkedHashMap<>();
  private final Map<String, Integer> violationCounts = new LinkedHashMap<>();
  private volatile String step = "warm-up";

  public Journal(PrintStream out) {
    this.out = out;
  }

  /** Seconds since the soak started, e.g. {@code +123.4s}. */
  public String stamp() {
    return stamp(System.nanoTime());
  }

  /** The same for a moment of the run ({@link System#nanoTime()}). */
  public String stamp(long nanos) {
    return String.format(Locale.ROOT, "+%.1fs", (nanos - startNanos) / 1e9);
  }

  public synchronized void log(String line) {
    out.println("[" + stamp() + "] " + line);
    out.flush();
  }

  /** What is under way now (a fault step, "warm-up", "final check"), for findings of the load. */
  public void step(String description) {
    this.step = description;
  }

  public String step() {
    return step;
  }

  /** Records and logs a violation of the soak's goals. */
  public synchronized void violation(String category, String detail) {
    String line = detail + " [" + stamp() + ", during " + step + "]";
    int n = violationCounts.merge(category, 1, Integer::sum);
    List<String> details = violations.computeIfAbsent(category, c -> new ArrayList<>());
    if (details.size() < DETAILS_PER_CATEGORY) {
      details.add(line);
    }
    if (n <= DETAILS_PER_CATEGORY) {
      log("VIOLATION " + category + ": " + line);
    } else if (n == DETAILS_PER_CATEGORY + 1) {
      log("VIOLATION " + category + ": more of these; counted, no longer logged one by one");
    }
  }

  public synchronized int violationCount() {
    return violationCounts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** Violations by category: how many, and the first few in full. */
  public synchronized Map<String, Integer> violationCounts() {
    return new LinkedHashMap<>(violationCounts);
  }

  public synchronized Map<String, List<String>> violationDetails() {
    Map<String, List<String>> copy = new LinkedHashMap<>();
    violations.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    return copy;
  }
}
