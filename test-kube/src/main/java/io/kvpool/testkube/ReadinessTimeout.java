package io.kvpool.testkube;

import java.time.Duration;
import java.time.LocalTime;

/**
 * The startup timeout of one kube-api-test start, kept clear of midnight.
 *
 * <p>kube-api-test 7.6.1 waits three times during a start (etcd healthy, kube-apiserver ready, the
 * default namespace), each up to the startup timeout, and measures each wait with {@link
 * LocalTime}: {@code now.isAfter(begin.plus(timeout))}. A deadline past midnight wraps to the small
 * hours, so a wait begun less than its timeout before midnight ends at its first unready poll with
 * "etcd did not start properly". That failed every start of a CI run in its last minutes before
 * midnight. So a start gets a timeout that ends all three waits before midnight, and a start too
 * close to midnight for a useful timeout first lets midnight pass.
 */
final class ReadinessTimeout {
  /** Two contended cores: a cold start takes well over kube-api-test's 60 s default there. */
  static final Duration FULL = Duration.ofMinutes(3);

  /** The shortest timeout given to a start; nearer midnight, the start waits for it to pass. */
  static final Duration SHORTEST = Duration.ofSeconds(30);

  private static final int WAITS = 3;

  /**
   * Covers what a start does before its first wait (certificates, starting etcd), and what it does
   * between waits, beyond the waits' own timeouts.
   */
  private static final Duration MARGIN = Duration.ofSeconds(20);

  /** Past midnight, so that a wait begun then measures against the new day. */
  private static final Duration PAST_MIDNIGHT = Duration.ofMillis(500);

  private ReadinessTimeout() {}

  /**
   * How long a start beginning at {@code now} waits before it begins: zero unless near midnight.
   */
  static Duration delayBeforeStart(LocalTime now) {
    return fitting(now).compareTo(SHORTEST) >= 0
        ? Duration.ZERO
        : untilMidnight(now).plus(PAST_MIDNIGHT);
  }

  /**
   * The timeout of a start beginning at {@code now} (after its {@link #delayBeforeStart delay}):
   * {@link #FULL}, or less when three waits of it could reach midnight.
   */
  static Duration of(LocalTime now) {
    Duration fitting = fitting(now);
    return fitting.compareTo(FULL) < 0 ? fitting : FULL;
  }

  private static Duration fitting(LocalTime now) {
    return untilMidnight(now).minus(MARGIN).dividedBy(WAITS);
  }

  private static Duration untilMidnight(LocalTime now) {
    return Duration.between(now, LocalTime.MAX).plusNanos(1);
  }
}
