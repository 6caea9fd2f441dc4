package io.kvpool.e2e.cluster;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.function.Executable;

/**
 * Runs one scenario of the suite with a deadline, logs its duration and what it measured, and on
 * failure (or at the deadline) dumps the diagnostics of the namespaces it used before failing the
 * test.
 */
public final class Scenario {
  /** One line of the suite's closing summary. */
  public record Outcome(String name, String result, Duration took, String measured) {}

  private static final List<Outcome> OUTCOMES = new ArrayList<>();

  private final String name;
  private final List<String> measured = new ArrayList<>();

  private Scenario(String name) {
    this.name = name;
  }

  /**
   * Something this scenario measured (a failover time, objects lost), for the log and the summary.
   */
  public void measured(String what) {
    synchronized (measured) {
      measured.add(what);
    }
    E2eLog.info("  measured: " + what);
  }

  public static void run(
      String name,
      Duration deadline,
      Diagnostics diagnostics,
      List<String> namespaces,
      ScenarioBody body) {
    Scenario scenario = new Scenario(name);
    E2eLog.info("scenario '" + name + "' started (deadline " + E2eLog.seconds(deadline) + ")");
    long started = System.nanoTime();
    try {
      Executable run = () -> body.run(scenario);
      assertTimeoutPreemptively(
          deadline,
          run,
          () -> "scenario '" + name + "' exceeded its deadline of " + E2eLog.seconds(deadline));
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      E2eLog.info("scenario '" + name + "' PASSED in " + E2eLog.seconds(took));
      record(new Outcome(name, "passed", took, scenario.summary()));
    } catch (Throwable failure) {
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      E2eLog.info(
          "scenario '"
              + name
              + "' FAILED after "
              + E2eLog.seconds(took)
              + ": "
              + failure.getMessage());
      String why = String.valueOf(failure.getMessage());
      why = why.length() > 160 ? why.substring(0, 160) + "..." : why;
      synchronized (scenario.measured) {
        scenario.measured.add("failure: " + why);
      }
      record(new Outcome(name, "FAILED", took, scenario.summary()));
      if (diagnostics != null) {
        diagnostics.dump(name, namespaces);
      }
      throw failure;
    }
  }

  /** Notes a scenario that did not run, e.g. because the pool it needs never became ready. */
  public static void skipped(String name, String why) {
    E2eLog.info("scenario '" + name + "' SKIPPED: " + why);
    record(new Outcome(name, "skipped", Duration.ZERO, why));
  }

  public static List<Outcome> outcomes() {
    synchronized (OUTCOMES) {
      return List.copyOf(OUTCOMES);
    }
  }

  public static String summaryTable() {
    StringBuilder table =
        new StringBuilder(
            String.format(
                Locale.ROOT, "%-76s %-8s %9s  %s%n", "SCENARIO", "RESULT", "DURATION", "MEASURED"));
    for (Outcome o : outcomes()) {
      table.append(
          String.format(
              Locale.ROOT,
              "%-76s %-8s %9s  %s%n",
              o.name(),
              o.result(),
              E2eLog.seconds(o.took()),
              o.measured()));
    }
    return table.toString();
  }

  private String summary() {
    synchronized (measured) {
      return String.join("; ", measured);
    }
  }

  private static void record(Outcome outcome) {
    synchronized (OUTCOMES) {
      OUTCOMES.add(outcome);
    }
  }

  /** A scenario's steps; they may throw anything (assertion errors, client errors). */
  @FunctionalInterface
  public interface ScenarioBody {
    void run(Scenario scenario) throws Throwable;
  }
}
