package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PatternSizeTest {
  @Test
  void plainPatternsCountTheirAtoms() {
    assertThat(PatternSize.of("abc")).isEqualTo(3);
    assertThat(PatternSize.of("^vllm/[0-9a-f]+/layer\\d+$")).isEqualTo(15);
    assertThat(PatternSize.of("(a|b)*c")).isEqualTo(3);
    assertThat(PatternSize.of("\\p{Greek}x")).isEqualTo(2);
  }

  @Test
  void countedRepetitionsMultiplyThroughNestedGroups() {
    assertThat(PatternSize.of("a{1000}")).isEqualTo(1000);
    assertThat(PatternSize.of("(ab){10}")).isEqualTo(20);
    assertThat(PatternSize.of("(a{1000}){1000}")).isEqualTo(1_000_000);
    assertThat(PatternSize.of("((a{1000}){1000}){1000}")).isGreaterThan(PatternSize.MAX);
    assertThat(PatternSize.of("a{5,}")).isEqualTo(6);
    assertThat(PatternSize.of("[{]{3}")).isEqualTo(3);
  }

  @Test
  void hugeCountsSaturateInsteadOfOverflowing() {
    assertThat(PatternSize.of("(a{99999999999}){99999999999}")).isGreaterThan(PatternSize.MAX);
    assertThat(PatternSize.of("((((a{1000}){1000}){1000}){1000}){1000}"))
        .isGreaterThan(PatternSize.MAX);
  }
}
