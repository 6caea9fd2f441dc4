package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FailedNodesTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final FailedNodes nodes = new FailedNodes(now::get, Duration.ofSeconds(10));

  @Test
  void aFailedNodeIsReadLastUntilItsFailureIsAsOldAsTheMemory() {
    assertThat(nodes.none()).isTrue();
    nodes.failed("10.0.0.2:7000");
    assertThat(nodes.none()).isFalse();
    assertThat(nodes.readLast("10.0.0.2:7000")).isTrue();
    assertThat(nodes.readLast("10.0.0.3:7000")).isFalse();
    now.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
    assertThat(nodes.readLast("10.0.0.2:7000")).isTrue();
    now.incrementAndGet();
    assertThat(nodes.readLast("10.0.0.2:7000")).isFalse();
    assertThat(nodes.none()).as("an expired failure is forgotten").isTrue();
  }

  @Test
  void aReadTheNodeAnsweredForgetsItsFailureAtOnce() {
    nodes.failed("10.0.0.2:7000");
    nodes.failed("10.0.0.3:7000");
    nodes.answered("10.0.0.2:7000");
    assertThat(nodes.readLast("10.0.0.2:7000")).isFalse();
    assertThat(nodes.readLast("10.0.0.3:7000")).isTrue();
  }

  @Test
  void aNewFailureStartsTheMemoryAgain() {
    nodes.failed("10.0.0.2:7000");
    now.addAndGet(Duration.ofSeconds(8).toNanos());
    nodes.failed("10.0.0.2:7000");
    now.addAndGet(Duration.ofSeconds(8).toNanos());
    assertThat(nodes.readLast("10.0.0.2:7000")).isTrue();
  }
}
