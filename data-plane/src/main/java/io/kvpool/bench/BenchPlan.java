package io.kvpool.bench;

import java.time.Duration;

/**
 * The workload every target runs: {@code clients} threads, each putting {@code keysPerClient} values of
 * {@code valueSize} bytes per round until {@code putTime} of timed rounds has passed, then reading the
 * last round's keys back for {@code getTime}.
 */
record BenchPlan(int valueSize, int clients, int keysPerClient, Duration putTime, Duration getTime) {

  BenchPlan {
    if (valueSize < 8) {
      throw new IllegalArgumentException("--value-size must be at least 8 bytes (a stamp is written into each value), got "
          + valueSize);
    }
    if (clients < 1 || keysPerClient < 1) {
      throw new IllegalArgumentException("need at least one client and one key per client, got clients=" + clients
          + " keysPerClient=" + keysPerClient);
    }
  }
}
