package io.kvpool.storage;

import java.time.Duration;

/** Waits on a condition in tests: polled, never a fixed sleep standing in for it. */
final class Conditions {
  private Conditions() {}

  /** Polls {@code check} until it passes or {@code within} is over (then its last failure). */
  static void eventually(Duration within, Runnable check) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        check.run();
        return;
      } catch (AssertionError e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }
}
