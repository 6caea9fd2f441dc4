package io.kvpool.bench.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.bench.BenchmarkFailedException;
import org.junit.jupiter.api.Test;

class HeapCensusTest {
  private static final String HISTOGRAM =
      """
      7409:
       num     #instances         #bytes  class name (module)
      -------------------------------------------------------
         1:       1000000      104000000  io.kvpool.master.StoredObject
         2:       1000123       32004000  [B (java.base@17.0.15)
         3:            12            480  [Ljava.util.HashMap$Node; (java.base@17.0.15)
      Total       2000135      136004480
      """;

  @Test
  void parsesRowsAndTheTotalOfJcmdsClassHistogram() {
    HeapCensus c = HeapCensus.parse(HISTOGRAM);
    assertThat(c.totalBytes()).isEqualTo(136_004_480L);
    assertThat(c.totalInstances()).isEqualTo(2_000_135L);
    assertThat(c.rows()).hasSize(3);
    assertThat(c.row("[B")).isEqualTo(new HeapCensus.Row("[B", 1_000_123, 32_004_000));
    assertThat(c.row("io.kvpool.master.StoredObject").bytes()).isEqualTo(104_000_000L);
    assertThat(c.row("absent").bytes()).isZero();
  }

  @Test
  void aHistogramWithoutTotalIsAFailureThatQuotesIt() {
    assertThatThrownBy(
            () -> HeapCensus.parse("7409:\nAttachNotSupportedException: no such process"))
        .isInstanceOf(BenchmarkFailedException.class)
        .hasMessageContaining("no Total line")
        .hasMessageContaining("AttachNotSupportedException");
  }

  @Test
  void heapSizesAndTheObjectsThatFit() {
    assertThat(MasterCapacity.parseHeap("4g")).isEqualTo(4L << 30);
    assertThat(MasterCapacity.parseHeap("512m")).isEqualTo(512L << 20);
    assertThatThrownBy(() -> MasterCapacity.parseHeap("lots"))
        .isInstanceOf(IllegalArgumentException.class);
    // 85 % of 16 GiB less a 10 MB baseline at 343 bytes per object, rounded down to 100,000
    assertThat(MasterCapacity.fitting(16L << 30, 10_000_000, 343)).isEqualTo(42_500_000L);
    assertThat(MasterCapacity.fitting(1L << 20, 10_000_000, 343)).isZero();
    // a small heap keeps 32 MiB free for a recovering master rather than 15 %: 96 MiB live, not
    // 108.8
    assertThat(MasterCapacity.fitting(128L << 20, 8_400_000, 242)).isEqualTo(300_000L);
  }

  @Test
  void keysHaveFourteenCharacters() {
    assertThat(CapacityKeys.key(0)).isEqualTo("obj/0000000000");
    assertThat(CapacityKeys.key(42)).isEqualTo("obj/0000000042").hasSize(CapacityKeys.LENGTH);
    assertThat(CapacityKeys.key(Integer.MAX_VALUE)).isEqualTo("obj/2147483647");
  }
}
