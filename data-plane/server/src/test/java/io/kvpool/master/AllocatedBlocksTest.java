package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class AllocatedBlocksTest {

  @Test
  void putFindRemove() {
    AllocatedBlocks b = new AllocatedBlocks();
    b.put(0, 64);
    b.put(128, 1 << 30);
    assertThat(b.contains(0)).isTrue();
    assertThat(b.length(0)).isEqualTo(64);
    assertThat(b.length(64)).isEqualTo(-1);
    assertThat(b.contains(64)).isFalse();
    assertThat(b.contains(-1)).isFalse();
    assertThat(b.remove(128)).isEqualTo(1L << 30);
    assertThat(b.remove(128)).isEqualTo(-1);
    assertThat(b.remove(-64)).isEqualTo(-1);
    assertThat(b.size()).isEqualTo(1);
    assertThatThrownBy(() -> b.put(0, 64)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> b.put(-64, 64)).isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Random puts and removes, through growth, shrinking and long probe runs (offsets that collide),
   * agree with a HashMap at every step.
   */
  @Test
  void agreesWithAMapThroughGrowthAndRemovals() {
    for (long seed = 1; seed <= 2; seed++) {
      Random random = new Random(seed);
      AllocatedBlocks b = new AllocatedBlocks();
      Map<Long, Long> reference = new HashMap<>();
      List<Long> present = new ArrayList<>();
      for (int step = 0; step < 200_000; step++) {
        boolean grow = step < 100_000 ? random.nextInt(4) != 0 : random.nextInt(4) == 0;
        if (grow || present.isEmpty()) {
          long offset = random.nextInt(1 << 22) * SegmentAllocator.ALIGNMENT;
          if (!reference.containsKey(offset)) {
            long length = SegmentAllocator.blockSize(1 + random.nextInt(1 << 20));
            b.put(offset, length);
            reference.put(offset, length);
            present.add(offset);
          }
        } else {
          int at = random.nextInt(present.size());
          long offset = present.get(at);
          present.set(at, present.get(present.size() - 1));
          present.remove(present.size() - 1);
          assertThat(b.remove(offset)).isEqualTo(reference.remove(offset));
        }
        if (step % 40_000 == 0) {
          assertThat(b.size()).isEqualTo(reference.size());
          for (long o : present) {
            assertThat(b.contains(o)).as("seed %d step %d offset %d", seed, step, o).isTrue();
          }
        }
      }
      for (long o : present) {
        assertThat(b.remove(o)).isEqualTo(reference.get(o));
      }
      assertThat(b.size()).isZero();
    }
  }
}
