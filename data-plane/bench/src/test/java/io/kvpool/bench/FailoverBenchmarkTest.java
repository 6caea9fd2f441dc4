package io.kvpool.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class FailoverBenchmarkTest {

  private static List<Duration> millis(long... values) {
    return java.util.Arrays.stream(values).mapToObj(Duration::ofMillis).toList();
  }

  @Test
  void medianOfAnOddAndAnEvenNumberOfRuns() {
    assertThat(FailoverBenchmark.median(millis(9000, 7000, 8000)))
        .isEqualTo(Duration.ofMillis(8000));
    assertThat(FailoverBenchmark.median(millis(9000, 7000, 8000, 10000)))
        .isEqualTo(Duration.ofMillis(8500));
    assertThat(FailoverBenchmark.max(millis(9000, 7000, 12000)))
        .isEqualTo(Duration.ofMillis(12000));
  }

  @Test
  void secondsWithTwoDecimals() {
    assertThat(FailoverBenchmark.seconds(Duration.ofMillis(8456))).isEqualTo("8.46 s");
  }
}
