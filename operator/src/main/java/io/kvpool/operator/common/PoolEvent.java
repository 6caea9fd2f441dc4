package io.kvpool.operator.common;

/** An Event to publish about a pool, decided by the status aggregator; its message is bounded. */
public record PoolEvent(PoolEventReason reason, String message) {
  public PoolEvent {
    message = StatusMessage.bound(message);
  }
}
