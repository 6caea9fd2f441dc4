package io.kvpool.protocol;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Bytes a server lets all its connections hold at once in control bodies larger than {@link
 * #SMALL_BODY_BYTES}: a reader takes room as a large body arrives and waits (back-pressure) while
 * there is none, so no number of peers declaring large bodies can make the server hold more than
 * the budget. Small bodies never wait.
 */
public final class BodyBudget {
  /**
   * Bodies up to this size are read without the budget (every per-value request and reply fits).
   */
  public static final int SMALL_BODY_BYTES = 64 << 10;

  private final Semaphore bytes;
  private final int capacity;

  public BodyBudget(int capacityBytes) {
    this.capacity = capacityBytes;
    this.bytes = new Semaphore(capacityBytes, true);
  }

  /** A budget that never waits (clients: they only read replies to their own requests). */
  public static BodyBudget unlimited() {
    return new BodyBudget(Integer.MAX_VALUE);
  }

  /**
   * Takes {@code n} bytes, waiting until they are free; false when interrupted (the connection was
   * closed).
   */
  boolean take(int n) throws InterruptedException {
    if (n > capacity) {
      throw new IllegalArgumentException(
          "a body of " + n + " bytes can never fit a budget of " + capacity);
    }
    bytes.acquire(n);
    return true;
  }

  /** Takes {@code n} bytes if free within {@code timeoutMillis}. */
  boolean tryTake(int n, long timeoutMillis) throws InterruptedException {
    return bytes.tryAcquire(n, timeoutMillis, TimeUnit.MILLISECONDS);
  }

  void give(int n) {
    if (n > 0) {
      bytes.release(n);
    }
  }

  public int available() {
    return bytes.availablePermits();
  }
}
