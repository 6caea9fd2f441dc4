package io.kvpool.client;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Storage nodes whose connection failed or timed out lately, shared by every operation of a client:
 * a get reads their replicas last (the failed node only when no other replica is left) for {@link
 * #MEMORY} after the failure, or until a read from the node succeeds. A frozen or partitioned node
 * then costs a client one exchange timeout, not one for every get that picks it until the master
 * declares the node dead.
 */
final class FailedNodes {
  /**
   * How long a failure is remembered: the master's default node TTL, after which a node silent
   * since the failure is dropped from the replica lists it gives out.
   */
  static final Duration MEMORY = Duration.ofSeconds(10);

  private final ConcurrentHashMap<String, Long> failedAtNanos = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;
  private final long memoryNanos;

  FailedNodes() {
    this(System::nanoTime, MEMORY);
  }

  FailedNodes(LongSupplier nanoClock, Duration memory) {
    this.nanoClock = nanoClock;
    this.memoryNanos = memory.toNanos();
  }

  /** Records that an exchange with the node at {@code endpoint} failed or timed out now. */
  void failed(String endpoint) {
    failedAtNanos.put(endpoint, nanoClock.getAsLong());
  }

  /** Records that the node at {@code endpoint} answered a read: it is no longer read last. */
  void answered(String endpoint) {
    if (!failedAtNanos.isEmpty()) {
      failedAtNanos.remove(endpoint);
    }
  }

  /** Whether no node is remembered (the common case: nothing to sort by). */
  boolean none() {
    return failedAtNanos.isEmpty();
  }

  /** Whether a read should go to {@code endpoint} only when no other replica is left. */
  boolean readLast(String endpoint) {
    if (failedAtNanos.isEmpty()) {
      return false;
    }
    Long at = failedAtNanos.get(endpoint);
    if (at == null) {
      return false;
    }
    if (nanoClock.getAsLong() - at < memoryNanos) {
      return true;
    }
    failedAtNanos.remove(endpoint, at); // forgotten, unless it failed again meanwhile
    return false;
  }
}
