package io.kvpool.master;

/**
 * Issues object generations, unique for the pool's life without any stored state: {@code max(last +
 * 1, now << 20)}. A later leader starts above every generation an earlier one issued as long as the
 * masters' clocks agree within the time it takes to issue 2^20 puts per millisecond ahead of the
 * clock, which no master does; so generations of a key only grow, across restarts and failovers.
 */
final class GenerationClock {
  private long last;

  long next(long nowMillis) {
    last = Math.max(last + 1, nowMillis << 20);
    return last;
  }

  /**
   * Reserves {@code count} consecutive generations for an extent (protocol 2.4): its first; none of
   * them is issued again.
   */
  long reserve(long nowMillis, int count) {
    long first = Math.max(last + 1, nowMillis << 20);
    last = first + count - 1;
    return first;
  }

  /** Never issue one at or below a generation learned from an inventory. */
  void observe(long generation) {
    last = Math.max(last, generation);
  }
}
