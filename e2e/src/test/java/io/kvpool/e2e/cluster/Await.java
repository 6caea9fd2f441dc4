package io.kvpool.e2e.cluster;

import java.time.Duration;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Polling with a deadline, the suite's only way of waiting: no fixed sleeps. A probe that throws
 * (an API server hiccup, a pod not yet there) counts as "not yet" and its error is what the timeout
 * reports.
 */
public final class Await {
  private Await() {}

  private static final int SHOWN = 2000;

  /**
   * Polls {@code probe} every {@code interval} until {@code done} accepts its value; returns that
   * value. At the deadline the error says what was last seen, as {@code describe} puts it.
   */
  public static <T> T until(
      String what,
      Duration limit,
      Duration interval,
      Supplier<T> probe,
      Predicate<T> done,
      Function<T, String> describe) {
    long deadline = System.nanoTime() + limit.toNanos();
    String last = "nothing yet";
    while (true) {
      try {
        T value = probe.get();
        if (value != null && done.test(value)) {
          return value;
        }
        last = value == null ? "nothing" : describe.apply(value);
      } catch (RuntimeException e) {
        last = e.toString();
      }
      if (last.length() > SHOWN) {
        last = last.substring(0, SHOWN) + "...";
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "timed out after "
                + E2eLog.seconds(limit)
                + " waiting for "
                + what
                + "; last seen: "
                + last);
      }
      try {
        Thread.sleep(interval.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(
            "interrupted while waiting for " + what + "; last seen: " + last, e);
      }
    }
  }

  public static <T> T until(
      String what, Duration limit, Duration interval, Supplier<T> probe, Predicate<T> done) {
    return until(what, limit, interval, probe, done, String::valueOf);
  }

  public static <T> T until(String what, Duration limit, Supplier<T> probe, Predicate<T> done) {
    return until(what, limit, Duration.ofSeconds(1), probe, done, String::valueOf);
  }

  public static <T> T until(
      String what,
      Duration limit,
      Supplier<T> probe,
      Predicate<T> done,
      Function<T, String> describe) {
    return until(what, limit, Duration.ofSeconds(1), probe, done, describe);
  }

  public static void until(String what, Duration limit, Supplier<Boolean> condition) {
    until(what, limit, condition, Boolean.TRUE::equals);
  }
}
