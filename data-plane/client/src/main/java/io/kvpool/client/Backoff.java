package io.kvpool.client;

import java.util.concurrent.ThreadLocalRandom;

/**
 * An operation's one deadline, and the growing, jittered waits between its retries: every attempt
 * of every key of a single or batch call, master exchanges and storage exchanges included, ends by
 * it.
 */
final class Backoff {
  private static final long FIRST_MILLIS = 20;
  private static final long MAX_MILLIS = 1_000;

  private final long deadlineNanos;
  private long next = FIRST_MILLIS;

  Backoff(long deadlineNanos) {
    this.deadlineNanos = deadlineNanos;
  }

  static Backoff until(java.time.Duration budget) {
    return new Backoff(System.nanoTime() + budget.toNanos());
  }

  /**
   * The time an exchange may take now: {@code perExchange}, cut to what is left of the operation
   * (at least 1 ms, so an exchange started just before the deadline fails at once rather than
   * never).
   */
  java.time.Duration within(java.time.Duration perExchange) {
    long leftNanos = Math.max(1_000_000, deadlineNanos - System.nanoTime());
    return perExchange.toNanos() <= leftNanos ? perExchange : java.time.Duration.ofNanos(leftNanos);
  }

  boolean expired() {
    return System.nanoTime() - deadlineNanos >= 0;
  }

  /** Sleeps the next wait (half fixed, half random); false when the deadline passed instead. */
  boolean pause() {
    long left = (deadlineNanos - System.nanoTime()) / 1_000_000;
    if (left <= 0) {
      return false;
    }
    long wait = Math.min(left, next / 2 + ThreadLocalRandom.current().nextLong(next / 2 + 1));
    next = Math.min(MAX_MILLIS, next * 2);
    try {
      Thread.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KvPoolException("interrupted while waiting to retry", e);
    }
    return !expired();
  }
}
