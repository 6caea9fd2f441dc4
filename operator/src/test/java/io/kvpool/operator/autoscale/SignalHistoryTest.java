package io.kvpool.operator.autoscale;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class SignalHistoryTest {
  @Test
  void keepsTheWindowAndOneReadingBeforeIt() {
    SignalHistory h = new SignalHistory();
    for (long ago = 600; ago >= 0; ago -= 10) {
      h.record(AutoscalerTest.sample(ago, 3, 0.5, 0, 0), Duration.ofSeconds(60));
    }
    assertThat(h.samples()).hasSize(7);
    assertThat(h.samples().get(0).at()).isEqualTo(AutoscalerTest.NOW.minusSeconds(60));
  }

  @Test
  void isBounded() {
    SignalHistory h = new SignalHistory();
    for (int i = 0; i < 3 * SignalHistory.MAX_SAMPLES; i++) {
      h.record(AutoscalerTest.sample(10_000 - i, 3, 0.5, 0, 0), Duration.ofDays(1));
    }
    assertThat(h.samples()).hasSize(SignalHistory.MAX_SAMPLES);
  }
}
