package io.kvpool.client;

/**
 * Pool totals as the master reports them; {@code nodes} counts live (ALIVE or DRAINING) storage
 * nodes.
 */
public record PoolStats(long capacityBytes, long usedBytes, long objects, int nodes) {}
