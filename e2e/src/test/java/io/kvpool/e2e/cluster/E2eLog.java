package io.kvpool.e2e.cluster;

import java.time.Duration;
import java.util.Locale;

/** The suite's log: standard output, each line with the time since the suite started. */
public final class E2eLog {
  private static final long STARTED = System.nanoTime();

  private E2eLog() {}

  public static synchronized void info(String message) {
    double seconds = (System.nanoTime() - STARTED) / 1e9;
    for (String line : message.split("\n", -1)) {
      System.out.printf(Locale.ROOT, "e2e [%7.1fs] %s%n", seconds, line);
    }
    System.out.flush();
  }

  public static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
