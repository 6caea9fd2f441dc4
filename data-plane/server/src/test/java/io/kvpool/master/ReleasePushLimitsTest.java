package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The release pusher's bounds as a master's settings: today's values by default, checked. */
class ReleasePushLimitsTest {
  @Test
  void aMasterPushesWithTheDocumentedBoundsUnlessToldOtherwise() {
    assertThat(MasterConfig.defaults("p").releasePush())
        .isEqualTo(
            new ReleasePushLimits(
                Duration.ofSeconds(1), Duration.ofSeconds(1), 64, Duration.ofSeconds(60), 8));
    ReleasePushLimits lane = ReleasePushLimits.DEFAULTS.withWaitingPerNode(8);
    assertThat(MasterConfig.builder("p").releasePush(lane).build().releasePush()).isEqualTo(lane);
    assertThat(MasterConfig.builder("p").releasePush(lane).build().toBuilder().build())
        .as("kept by toBuilder")
        .isEqualTo(MasterConfig.builder("p").releasePush(lane).build());
  }

  @Test
  void boundsThatCouldNotPushAreRefused() {
    assertThatThrownBy(() -> ReleasePushLimits.DEFAULTS.withWaitingPerNode(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one waiting per node");
    assertThatThrownBy(() -> ReleasePushLimits.DEFAULTS.withKeptIdle(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> MasterConfig.builder("p").releasePush(null).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("release push limits");
  }
}
