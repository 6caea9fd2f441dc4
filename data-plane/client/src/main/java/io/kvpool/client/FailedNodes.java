package io.kvpool.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Storage nodes (by node id) whose connection failed or timed out lately, shared by every operation
 * of a client, for a while after the failure ({@link ClientConfig.Builder#failedNodeMemory}, 10 s
 * by default) or until the node answers a read or a write: a get reads their replicas last (the
 * failed node only when no other replica is left), and a PUT_START or an extent grant asks the
 * master to place the put elsewhere. A frozen or partitioned node then costs a client one exchange
 * timeout, not one for every get or put that meets it until the master declares the node dead.
 */
final class FailedNodes {
  /** The most nodes {@link #recent} names: a PUT_START avoids at most 16 (PROTOCOL.md). */
  static final int MAX_RECENT = 16;

  private final ConcurrentHashMap<String, Long> failedAtNanos = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;
  private final long memoryNanos;
  private final Consumer<String> counted;

  /**
   * Remembers each failure for {@code memory}, read from {@code nanoClock}; {@code counted} is told
   * of each (the client's metrics).
   */
  FailedNodes(LongSupplier nanoClock, Duration memory, Consumer<String> counted) {
    this.nanoClock = nanoClock;
    this.memoryNanos = memory.toNanos();
    this.counted = counted;
  }

  /** Records that an exchange with node {@code nodeId} failed or timed out now. */
  void failed(String nodeId) {
    failedAtNanos.put(nodeId, nanoClock.getAsLong());
    counted.accept(nodeId);
  }

  /** Records that node {@code nodeId} answered a read or a write: it is forgotten. */
  void answered(String nodeId) {
    if (!failedAtNanos.isEmpty()) {
      failedAtNanos.remove(nodeId);
    }
  }

  /** Whether no node is remembered (the common case: nothing to sort by). */
  boolean none() {
    return failedAtNanos.isEmpty();
  }

  /** Whether a read should go to node {@code nodeId} only when no other replica is left. */
  boolean readLast(String nodeId) {
    if (failedAtNanos.isEmpty()) {
      return false;
    }
    Long at = failedAtNanos.get(nodeId);
    if (at == null) {
      return false;
    }
    if (nanoClock.getAsLong() - at < memoryNanos) {
      return true;
    }
    failedAtNanos.remove(nodeId, at); // forgotten, unless it failed again meanwhile
    return false;
  }

  /** The nodes remembered now, the latest failure first, at most {@link #MAX_RECENT}. */
  List<String> recent() {
    if (failedAtNanos.isEmpty()) {
      return List.of();
    }
    long now = nanoClock.getAsLong();
    return failedAtNanos.entrySet().stream()
        .filter(e -> now - e.getValue() < memoryNanos)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(MAX_RECENT)
        .map(Map.Entry::getKey)
        .toList();
  }
}
