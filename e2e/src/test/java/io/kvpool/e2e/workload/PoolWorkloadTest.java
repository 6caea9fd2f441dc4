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

  @Test
  void keysSortInPutOrder() {
    assertThat(PoolWorkload.key("v", 42)).isEqualTo("v-000042");
  }
}
