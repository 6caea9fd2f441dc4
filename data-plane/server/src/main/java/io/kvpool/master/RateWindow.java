package io.kvpool.master;

/**
 * A sum over the last {@code seconds} whole seconds, in one bucket per second (a ring: fixed
 * memory, O(1) to add, O(seconds) to read). A rate is the sum divided by the window, so in a
 * process younger than the window it reads low rather than high. Not thread-safe: {@link
 * CacheSignals} guards it.
 */
final class RateWindow {
  private final long[] sums;
  private final long[] secondOf;

  RateWindow(int seconds) {
    this.sums = new long[seconds];
    this.secondOf = new long[seconds];
    java.util.Arrays.fill(secondOf, -1);
  }

  void add(long nowMillis, long amount) {
    long second = Math.floorDiv(nowMillis, 1000);
    int slot = (int) Math.floorMod(second, (long) sums.length);
    if (secondOf[slot] != second) {
      secondOf[slot] = second;
      sums[slot] = 0;
    }
    sums[slot] += amount;
  }

  /** The sum of the last {@code seconds} seconds, the current one included. */
  long sum(long nowMillis) {
    long second = Math.floorDiv(nowMillis, 1000);
    long total = 0;
    for (int i = 0; i < sums.length; i++) {
      if (secondOf[i] > second - sums.length && secondOf[i] <= second) {
        total += sums[i];
      }
    }
    return total;
  }

  double perSecond(long nowMillis) {
    return (double) sum(nowMillis) / sums.length;
  }

  int seconds() {
    return sums.length;
  }
}
