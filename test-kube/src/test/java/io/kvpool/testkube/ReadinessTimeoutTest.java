package io.kvpool.testkube;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.LocalTime;
import org.junit.jupiter.api.Test;

/** {@link ReadinessTimeout}: three waits of a start's timeout always end before midnight. */
class ReadinessTimeoutTest {
  @Test
  void aStartFarFromMidnightGetsTheFullTimeoutAtOnce() {
    for (LocalTime now :
        new LocalTime[] {LocalTime.MIDNIGHT, LocalTime.NOON, LocalTime.of(23, 50)}) {
      assertThat(ReadinessTimeout.delayBeforeStart(now)).as("delay at %s", now).isZero();
      assertThat(ReadinessTimeout.of(now))
          .as("timeout at %s", now)
          .isEqualTo(ReadinessTimeout.FULL);
    }
  }

  @Test
  void nearMidnightThreeWaitsAndTheMarginEndBeforeMidnight() {
    LocalTime now = LocalTime.of(23, 57, 0);
    Duration timeout = ReadinessTimeout.of(now);
    assertThat(ReadinessTimeout.delayBeforeStart(now)).isZero();
    assertThat(timeout)
        .isLessThan(ReadinessTimeout.FULL)
        .isGreaterThanOrEqualTo(ReadinessTimeout.SHORTEST);
    assertThat(now.plus(timeout.multipliedBy(3)).plusSeconds(20))
        .as("the last wait's deadline, with the margin, is still today")
        .isAfter(now);
  }

  @Test
  void tooCloseToMidnightTheStartWaitsUntilJustPastIt() {
    LocalTime now = LocalTime.of(23, 59, 30);
    Duration delay = ReadinessTimeout.delayBeforeStart(now);
    LocalTime after = now.plus(delay);
    assertThat(after)
        .as("the clock after the delay")
        .isBetween(LocalTime.MIDNIGHT, LocalTime.of(0, 0, 1));
    assertThat(ReadinessTimeout.of(after)).isEqualTo(ReadinessTimeout.FULL);
  }

  @Test
  void theLatestStartWithoutADelayStillGetsTheShortestTimeout() {
    LocalTime now =
        LocalTime.MIDNIGHT.minus(ReadinessTimeout.SHORTEST.multipliedBy(3)).minusSeconds(20);
    assertThat(ReadinessTimeout.delayBeforeStart(now)).isZero();
    assertThat(ReadinessTimeout.of(now)).isEqualTo(ReadinessTimeout.SHORTEST);
    assertThat(ReadinessTimeout.delayBeforeStart(now.plusNanos(1))).isPositive();
  }
}
