package io.kvpool.it;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition of a running pool until it holds or a deadline passes. */
public final class Eventually {

  private Eventually() {}

  /**
   * Waits until {@code condition} holds; the failure names what was awaited and the last
   * observation.
   */
  public static void await(
      Duration timeout, String what, BooleanSupplier condition, Supplier<String> lastObservation) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "not true within "
                + timeout
                + ": "
                + what
                + "; last observed: "
                + lastObservation.get());
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted while waiting until " + what, e);
      }
    }
  }
}
