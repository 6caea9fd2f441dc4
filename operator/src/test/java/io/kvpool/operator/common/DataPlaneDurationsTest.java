package io.kvpool.operator.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DataPlaneDurationsTest {

  @Test
  void readsWholeMillisecondsSecondsAndMinutes() {
    assertThat(DataPlaneDurations.parse("500ms")).contains(Duration.ofMillis(500));
    assertThat(DataPlaneDurations.parse("5s")).contains(Duration.ofSeconds(5));
    assertThat(DataPlaneDurations.parse("10m")).contains(Duration.ofMinutes(10));
    assertThat(DataPlaneDurations.parse("5 s")).isEmpty();
    assertThat(DataPlaneDurations.parse("1h")).isEmpty();
    assertThat(DataPlaneDurations.parse("99999999999999999999s"))
        .as("more digits than a long holds")
        .isEmpty();
    assertThat(DataPlaneDurations.parse(null)).isEmpty();
  }

  @Test
  void formatsTheShortestExactForm() {
    assertThat(DataPlaneDurations.format(Duration.ofMinutes(10))).isEqualTo("10m");
    assertThat(DataPlaneDurations.format(Duration.ofSeconds(3))).isEqualTo("3s");
    assertThat(DataPlaneDurations.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
  }
}
