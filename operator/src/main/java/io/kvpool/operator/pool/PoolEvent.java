package io.kvpool.operator.pool;

/** An Event to publish about a pool, decided by the status aggregator. */
public record PoolEvent(PoolEventReason reason, String message) {
}
