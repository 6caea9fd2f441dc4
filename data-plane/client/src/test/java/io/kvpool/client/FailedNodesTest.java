package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FailedNodesTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final List<String> counted = new ArrayList<>();
  private final FailedNodes nodes = new FailedNodes(now::get, Duration.ofSeconds(10), counted::add);

  @Test
  void aFailedNodeIsReadLastUntilItsFailureIsAsOldAsTheMemory() {
    assertThat(nodes.none()).isTrue();
    nodes.failed("node-2");
    assertThat(nodes.none()).isFalse();
    assertThat(nodes.readLast("node-2")).isTrue();
    assertThat(nodes.readLast("node-3")).isFalse();
    now.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
    assertThat(nodes.readLast("node-2")).isTrue();
    now.incrementAndGet();
    assertThat(nodes.readLast("node-2")).isFalse();
    assertThat(nodes.none()).as("an expired failure is forgotten").isTrue();
  }

  @Test
  void aReadTheNodeAnsweredForgetsItsFailureAtOnce() {
    nodes.failed("node-2");
    nodes.failed("node-3");
    nodes.answered("node-2");
    assertThat(nodes.readLast("node-2")).isFalse();
    assertThat(nodes.readLast("node-3")).isTrue();
  }

  @Test
  void aNewFailureStartsTheMemoryAgain() {
    nodes.failed("node-2");
    now.addAndGet(Duration.ofSeconds(8).toNanos());
    nodes.failed("node-2");
    now.addAndGet(Duration.ofSeconds(8).toNanos());
    assertThat(nodes.readLast("node-2")).isTrue();
    assertThat(counted).as("every failure counted").containsExactly("node-2", "node-2");
  }

  @Test
  void recentNamesTheNodesRememberedNowTheLatestFailureFirst() {
    assertThat(nodes.recent()).isEmpty();
    nodes.failed("node-1");
    now.addAndGet(Duration.ofSeconds(5).toNanos());
    nodes.failed("node-2");
    now.incrementAndGet();
    nodes.failed("node-3");
    nodes.answered("node-3");
    assertThat(nodes.recent()).containsExactly("node-2", "node-1");
    now.addAndGet(Duration.ofSeconds(5).toNanos());
    assertThat(nodes.recent()).as("node-1's failure is 10 s old").containsExactly("node-2");
  }

  @Test
  void recentNamesAtMostAsManyNodesAsAPutStartMayAvoid() {
    for (int i = 0; i < FailedNodes.MAX_RECENT + 4; i++) {
      nodes.failed("node-" + i);
      now.incrementAndGet();
    }
    assertThat(nodes.recent())
        .hasSize(FailedNodes.MAX_RECENT)
        .startsWith("node-" + (FailedNodes.MAX_RECENT + 3))
        .doesNotContain("node-0", "node-3");
  }
}
