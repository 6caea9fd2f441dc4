package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SegmentAllocatorTest {
  @Test
  void anExtentIsCarvedIntoBlocksThatAreFreedOneByOne() {
    SegmentAllocator a = new SegmentAllocator(1 << 20);
    long extent = a.allocate(256 << 10);
    long used = a.used();
    // carve a value of 100 bytes at 64 KiB into the extent: three allocated blocks, same use
    assertThat(a.split(extent, extent + (64 << 10))).isTrue();
    assertThat(a.split(extent + (64 << 10), extent + (64 << 10) + 128)).isTrue();
    assertThat(a.used()).isEqualTo(used);
    assertThat(a.allocatedLength(extent)).isEqualTo(64 << 10);
    assertThat(a.allocatedLength(extent + (64 << 10))).isEqualTo(128);
    // not a block start, not aligned, not inside: refused, nothing changes
    assertThat(a.split(extent + 64, extent + 128)).isFalse();
    assertThat(a.split(extent, extent + 32)).isFalse();
    assertThat(a.split(extent, extent + (64 << 10))).isFalse();
    // the gaps go back, the value stays; then the value goes too and everything coalesces
    a.free(extent);
    a.free(extent + (64 << 10) + 128);
    assertThat(a.used()).isEqualTo(128);
    a.free(extent + (64 << 10));
    assertThat(a.used()).isZero();
    assertThat(a.largestFreeBlock()).isEqualTo(1 << 20);
  }

  @Test
  void allocatesAlignedBlocksUntilFull() {
    SegmentAllocator a = new SegmentAllocator(1024);
    assertThat(a.allocate(100)).isEqualTo(0);
    assertThat(a.allocate(1)).isEqualTo(128);
    assertThat(a.used()).isEqualTo(192);
    assertThat(a.allocate(832)).isEqualTo(192);
    assertThat(a.free()).isZero();
    assertThat(a.allocate(1)).as("full segment").isEqualTo(-1);
  }

  @Test
  void freeCoalescesWithBothNeighbours() {
    SegmentAllocator a = new SegmentAllocator(64 * 3);
    long x = a.allocate(64);
    long y = a.allocate(64);
    long z = a.allocate(64);
    a.free(x);
    a.free(z);
    assertThat(a.freeBlockCount()).isEqualTo(2);
    assertThat(a.allocate(128)).as("two separate holes do not fit 128").isEqualTo(-1);
    a.free(y);
    assertThat(a.freeBlockCount()).isEqualTo(1);
    assertThat(a.largestFreeBlock()).isEqualTo(192);
    assertThat(a.allocate(192)).isZero();
  }

  @Test
  void bestFitKeepsLargeHolesForLargeValues() {
    SegmentAllocator a = new SegmentAllocator(64 * 10);
    long small1 = a.allocate(64);
    a.allocate(64);
    long big = a.allocate(64 * 4);
    a.allocate(64);
    a.free(small1); // hole of 64 at 0
    a.free(big); // hole of 256 at 128
    assertThat(a.allocate(64)).as("best fit takes the small hole").isEqualTo(small1);
    assertThat(a.allocate(256)).isEqualTo(big);
  }

  @Test
  void fragmentationIsUndoneWhenEverythingIsFreed() {
    SegmentAllocator a = new SegmentAllocator(1 << 20);
    Random random = new Random(42);
    List<Long> live = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      if (!live.isEmpty() && random.nextBoolean()) {
        a.free(live.remove(random.nextInt(live.size())));
      } else {
        long off = a.allocate(1 + random.nextInt(8192));
        if (off >= 0) {
          assertThat(off % SegmentAllocator.ALIGNMENT).isZero();
          live.add(off);
        }
      }
    }
    live.forEach(a::free);
    assertThat(a.used()).isZero();
    assertThat(a.freeBlockCount()).isEqualTo(1);
    assertThat(a.largestFreeBlock()).isEqualTo(1 << 20);
  }

  @Test
  void reserveClaimsExactRangesOnlyWhenFree() {
    SegmentAllocator a = new SegmentAllocator(4096);
    assertThat(a.reserve(1024, 100)).isTrue();
    assertThat(a.reserve(1024, 100)).isFalse();
    assertThat(a.reserve(1000, 64)).as("unaligned").isFalse();
    assertThat(a.reserve(4096 - 64, 128)).as("past the end").isFalse();
    a.free(1024);
    assertThat(a.freeBlockCount()).isEqualTo(1);
  }

  @Test
  void freeingAnUnknownOffsetIsAnError() {
    SegmentAllocator a = new SegmentAllocator(4096);
    assertThatThrownBy(() -> a.free(64))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("64");
  }
}
