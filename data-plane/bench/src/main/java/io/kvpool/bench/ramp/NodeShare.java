package io.kvpool.bench.ramp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One node's part of the replicas placed in one interval.
 *
 * @param node the storage node's id
 * @param replicas replicas it received in the interval
 * @param share its part of all replicas received in the interval, 0..1
 * @param fairShare its part of the capacity of the eligible (ALIVE) nodes, 0 when not eligible
 * @param fill its used over capacity at the end of the interval, as the master reports it
 */
record NodeShare(String node, long replicas, double share, double fairShare, double fill) {

  /** Share over fair share; NaN for a node that was not eligible. */
  double ratio() {
    return fairShare > 0 ? share / fairShare : Double.NaN;
  }

  /**
   * The shares of one interval: {@code replicas} received per node (every node of the pool), the
   * {@code capacity} of each eligible node, and the {@code fill} of each node (absent: 0).
   */
  static List<NodeShare> of(
      Map<String, Long> replicas, Map<String, Long> capacity, Map<String, Double> fill) {
    long total = replicas.values().stream().mapToLong(Long::longValue).sum();
    long eligible = capacity.values().stream().mapToLong(Long::longValue).sum();
    List<NodeShare> out = new ArrayList<>();
    for (Map.Entry<String, Long> e : replicas.entrySet()) {
      long own = capacity.getOrDefault(e.getKey(), 0L);
      out.add(
          new NodeShare(
              e.getKey(),
              e.getValue(),
              total == 0 ? 0 : (double) e.getValue() / total,
              eligible == 0 ? 0 : (double) own / eligible,
              fill.getOrDefault(e.getKey(), 0.0)));
    }
    return out;
  }
}
