package io.kvpool.operator.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeadershipLossTest {

  @Test
  void losingTheLeaseWhileRunningExitsWithOne() {
    List<Integer> exits = new ArrayList<>();
    LeadershipLoss loss = new LeadershipLoss(exits::add);

    loss.callbacks().onStopLeading();

    assertThat(exits).containsExactly(1);
  }

  /**
   * On SIGTERM the SDK stops leading inside the JVM shutdown hook: exiting there would deadlock.
   */
  @Test
  void releasingTheLeaseWhileShuttingDownDoesNotExit() {
    List<Integer> exits = new ArrayList<>();
    LeadershipLoss loss = new LeadershipLoss(exits::add);

    loss.applicationStopping();
    loss.callbacks().onStopLeading();

    assertThat(exits).isEmpty();
  }
}
