package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateWindowTest {
  @Test
  void sumsTheLastSecondsAndDropsOlderOnes() {
    RateWindow w = new RateWindow(10);
    w.add(0, 5);
    w.add(999, 5);
    w.add(9_500, 10);
    assertThat(w.sum(9_999)).isEqualTo(20);
    assertThat(w.perSecond(9_999)).isEqualTo(2.0);
    assertThat(w.sum(10_000)).as("second 0 left the window").isEqualTo(10);
    w.add(10_000, 1); // reuses second 0's bucket
    assertThat(w.sum(10_000)).isEqualTo(11);
    assertThat(w.sum(30_000)).as("all old").isZero();
  }
}
