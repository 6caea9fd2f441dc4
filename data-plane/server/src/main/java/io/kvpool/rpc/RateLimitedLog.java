package io.kvpool.rpc;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs a line at most once per interval and counts what it suppressed, so a bad peer cannot flood
 * the log.
 */
public final class RateLimitedLog {
  private final Logger log;
  private final long intervalNanos;
  private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
  private final AtomicLong suppressed = new AtomicLong();

  public RateLimitedLog(Logger log, long intervalMillis) {
    this.log = log;
    this.intervalNanos = intervalMillis * 1_000_000L;
  }

  public void warn(String format, Object... args) {
    if (allowed()) {
      long dropped = suppressed.getAndSet(0);
      if (dropped > 0) {
        log.warn("event=log_suppressed count={} (similar warnings skipped)", dropped);
      }
      log.warn(format, args);
    }
  }

  /** As {@link #warn}, at INFO: for events an operator should see, not a fault. */
  public void info(String format, Object... args) {
    if (allowed()) {
      long dropped = suppressed.getAndSet(0);
      if (dropped > 0) {
        log.info("event=log_suppressed count={} (similar lines skipped)", dropped);
      }
      log.info(format, args);
    }
  }

  /** Whether a line may be logged now; counts it as suppressed when not. */
  private boolean allowed() {
    long now = System.nanoTime();
    long next = nextAllowed.get();
    if ((next == Long.MIN_VALUE || now - next >= 0)
        && nextAllowed.compareAndSet(next, now + intervalNanos)) {
      return true;
    }
    suppressed.incrementAndGet();
    return false;
  }
}
