package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** An operation's one deadline: exchanges are cut to what is left of it, never past it. */
class BackoffTest {
  @Test
  void anExchangeGetsItsOwnTimeoutWhileTheOperationHasMoreLeft() {
    Backoff b = Backoff.until(Duration.ofMinutes(10));
    assertThat(b.within(Duration.ofSeconds(10))).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void anExchangeIsCutToWhatIsLeftOfTheOperation() {
    Backoff b = Backoff.until(Duration.ofSeconds(2));
    assertThat(b.within(Duration.ofSeconds(10)))
        .isLessThanOrEqualTo(Duration.ofSeconds(2))
        .isPositive();
  }

  @Test
  void anExpiredOperationLeavesOneMillisecondAndDoesNotPause() {
    Backoff b = new Backoff(System.nanoTime() - 1);
    assertThat(b.expired()).isTrue();
    assertThat(b.within(Duration.ofSeconds(10))).isEqualTo(Duration.ofMillis(1));
    assertThat(b.pause()).isFalse();
  }
}
