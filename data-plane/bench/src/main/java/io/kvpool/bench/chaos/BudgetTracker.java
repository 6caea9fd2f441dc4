package io.kvpool.bench.chaos;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The body budget of every server (the {@code kvpool_body_budget_available_bytes} gauge of its
 * {@code /metrics}): the room for large control bodies, which a connection must give back however
 * it ends. Per process incarnation the highest reading is the whole budget (read while idle); a
 * reading below it after a fault healed and the load's own large bodies had time to finish is
 * budget that leaked.
 */
public final class BudgetTracker {
  static final String GAUGE = "kvpool_body_budget_available_bytes";

  /** The whole budget (highest reading) and the last reading of one incarnation. */
  public record Reading(String name, long pid, long whole, long last) {
    public long missing() {
      return Math.max(0, whole - last);
    }
  }

  private final Map<String, Reading> readings = new LinkedHashMap<>();
  private boolean unavailable;

  /**
   * Records {@code metrics} (a /metrics page) of {@code name} (pid {@code pid}); false if it has no
   * such gauge.
   */
  public synchronized boolean record(String name, long pid, String metrics) {
    OptionalLong available = available(metrics);
    if (available.isEmpty()) {
      unavailable = true;
      return false;
    }
    Reading r = readings.get(name);
    long v = available.getAsLong();
    readings.put(
        name,
        r == null || r.pid() != pid
            ? new Reading(name, pid, v, v)
            : new Reading(name, pid, Math.max(r.whole(), v), v));
    return true;
  }

  public synchronized Map<String, Reading> readings() {
    return new LinkedHashMap<>(readings);
  }

  /**
   * Whether some server had no budget gauge (a release without it): then budgets are not judged.
   */
  public synchronized boolean unavailable() {
    return unavailable;
  }

  /**
   * The gauge's value in a Prometheus text page (summed over its label sets), or empty when absent.
   */
  static OptionalLong available(String metrics) {
    boolean found = false;
    double sum = 0;
    for (String line : metrics.split("\n")) {
      if (line.startsWith(GAUGE)
          && (line.length() == GAUGE.length()
              || line.charAt(GAUGE.length()) == ' '
              || line.charAt(GAUGE.length()) == '{')) {
        int labels = line.lastIndexOf('}');
        String rest = labels >= 0 ? line.substring(labels + 1) : line.substring(GAUGE.length());
        sum +=
            Double.parseDouble(rest.trim().split("\\s+")[0]); // the value; a timestamp may follow
        found = true;
      }
    }
    return found ? OptionalLong.of((long) sum) : OptionalLong.empty();
  }
}
