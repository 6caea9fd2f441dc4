package io.kvpool.client;

/**
 * How a client's gets found their replicas: {@code hits} were served from replica lists it already
 * held (straight to a storage node), {@code misses} asked the master, {@code stale} were cached
 * lists a node refused (or whose bytes did not verify), after which the client asked the master.
 */
public record LocationCacheStats(long hits, long misses, long stale) {}
