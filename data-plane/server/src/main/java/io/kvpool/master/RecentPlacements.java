package io.kvpool.master;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * How many replicas were placed on each node, and on all nodes, over a sliding window, counted in
 * one-second buckets: what the placement's share cap reads. Guarded by the metadata lock.
 */
final class RecentPlacements {
  /**
   * Counts per second of the window, in a ring; a bucket holding an older second counts as empty.
   */
  private static final class Buckets {
    final long[] seconds;
    final long[] counts;

    Buckets(int size) {
      seconds = new long[size];
      counts = new long[size];
      Arrays.fill(seconds, Long.MIN_VALUE);
    }

    void add(long second) {
      int i = (int) Math.floorMod(second, (long) seconds.length);
      if (seconds[i] != second) {
        seconds[i] = second;
        counts[i] = 0;
      }
      counts[i]++;
    }

    long sum(long second) {
      long sum = 0;
      for (int i = 0; i < seconds.length; i++) {
        if (seconds[i] > second - seconds.length && seconds[i] <= second) {
          sum += counts[i];
        }
      }
      return sum;
    }
  }

  private final int windowSeconds;
  private final Buckets all;
  private final Map<String, Buckets> byNode = new HashMap<>();

  RecentPlacements(Duration window) {
    this.windowSeconds = (int) Math.max(1, window.toSeconds());
    this.all = new Buckets(windowSeconds);
  }

  void record(String nodeId, long nowMillis) {
    long second = Math.floorDiv(nowMillis, 1000);
    all.add(second);
    byNode.computeIfAbsent(nodeId, id -> new Buckets(windowSeconds)).add(second);
  }

  long total(long nowMillis) {
    return all.sum(Math.floorDiv(nowMillis, 1000));
  }

  long of(String nodeId, long nowMillis) {
    Buckets b = byNode.get(nodeId);
    return b == null ? 0 : b.sum(Math.floorDiv(nowMillis, 1000));
  }
}
