package io.kvpool.bench.chaos;

import io.kvpool.bench.BenchmarkFailedException;

/**
 * A pause of the soak's own pacing (between polls, a fault's duration); interruption ends the soak.
 */
final class Pause {
  private Pause() {}

  static void millis(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted", e);
    }
  }
}
