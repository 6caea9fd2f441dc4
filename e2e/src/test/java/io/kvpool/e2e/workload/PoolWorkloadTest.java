package io.kvpool.e2e.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PoolWorkloadTest {
  @Test
  void valuesDependOnlyOnSeedAndIndexAndStayWithinTheirSizes() {
    assertThat(PoolWorkload.value(1, 7)).isEqualTo(PoolWorkload.value(1, 7));
    assertThat(PoolWorkload.value(1, 7)).isNotEqualTo(PoolWorkload.value(1, 8));
    assertThat(PoolWorkload.value(1, 7)).isNotEqualTo(PoolWorkload.value(2, 7));
    long total = 0;
    for (int i = 0; i < 2000; i++) {
      int size = PoolWorkload.value(1, i).length;
      assertThat(size).isBetween(PoolWorkload.MIN_SIZE, PoolWorkload.MAX_SIZE);
      total += size;
    }
    // 2,000 values with 2 replicas fit three 64 MiB nodes well below the 0.9 eviction watermark.
    assertThat(2 * total).isLessThan((long) (0.9 * 3 * 64 * 1024 * 1024) / 2);
  }

  /**
   * The autoscaling scenario's numbers (KvPoolClusterIT: 720 values at R=2 into 2 storage nodes of
   * 16 MiB, fullness target 40 %; 120 more at 4 nodes; then all but the first 120 and the last 120
   * removed): past the target enough to ask for 4 nodes at once, under the 0.9 eviction watermark,
   * still above the target on 3 nodes (no scale-down before the removal), and the 240 kept fit 2
   * nodes well within it.
   */
  @Test
  void theAutoscalingScenarioFillsTwoSmallNodesPastItsTargetButNotToTheWatermark() {
    double node = 16 * 1024 * 1024;
    double first = 2 * bytes(0, 720);
    assertThat(Math.ceil(2 * (first / (2 * node)) / 0.4))
        .as("nodes the fullness asks for")
        .isGreaterThanOrEqualTo(4);
    assertThat(first / (2 * node)).as("fullness of 2 nodes").isLessThan(0.8);
    assertThat((first + 2 * bytes(720, 120)) / (3 * node))
        .as("fullness of 3 nodes")
        .isGreaterThan(0.44);
    assertThat((2 * bytes(0, 120) + 2 * bytes(720, 120)) / (2 * node))
        .as("fullness of 2 nodes with the kept keys")
        .isLessThan(0.3);
  }

  private static long bytes(int from, int keys) {
    long total = 0;
    for (int i = from; i < from + keys; i++) {
      total += PoolWorkload.value(1, i).length;
    }
    return total;
  }

  @Test
  void keysSortInPutOrder() {
    assertThat(PoolWorkload.key("v", 42)).isEqualTo("v-000042");
  }
}
