package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecentlyEvictedKeysTest {
  @Test
  void remembersTheLastGenerationAndForgetsTwoGenerationsBack() {
    RecentlyEvictedKeys keys = new RecentlyEvictedKeys(1 << 16, 1000);
    for (int i = 0; i < 1000; i++) {
      keys.add("old-" + i);
    }
    for (int i = 0; i < 1000; i++) {
      keys.add("new-" + i);
    }
    for (int i = 0; i < 1000; i++) {
      assertThat(keys.mightContain("old-" + i)).as("old-%d one generation back", i).isTrue();
      assertThat(keys.mightContain("new-" + i)).as("new-%d", i).isTrue();
    }
    for (int i = 0; i < 1000; i++) {
      keys.add("newer-" + i);
    }
    keys.add("newest"); // rotates: the "old" generation is cleared
    int oldStill = 0;
    for (int i = 0; i < 1000; i++) {
      oldStill += keys.mightContain("old-" + i) ? 1 : 0;
      assertThat(keys.mightContain("newer-" + i)).isTrue();
    }
    assertThat(oldStill).as("false positives among forgotten keys").isLessThan(20);
  }

  @Test
  void defaultSizeHasFewFalsePositivesWhenFullAndAFixedFootprint() {
    RecentlyEvictedKeys keys = new RecentlyEvictedKeys();
    for (int i = 0; i < 2 * RecentlyEvictedKeys.DEFAULT_KEYS_PER_GENERATION; i++) {
      keys.add("prefix/evicted/" + i);
    }
    int falsePositives = 0;
    int probes = 100_000;
    for (int i = 0; i < probes; i++) {
      falsePositives += keys.mightContain("prefix/never-put/" + i) ? 1 : 0;
    }
    assertThat((double) falsePositives / probes)
        .as("false positive rate, both filters full")
        .isLessThan(0.01);
    assertThat(keys.memoryBytes()).isEqualTo(256 * 1024);
  }

  @Test
  void refusesSizesThatAreNotWholeWords() {
    assertThatThrownBy(() -> new RecentlyEvictedKeys(100, 10))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RecentlyEvictedKeys(64, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
