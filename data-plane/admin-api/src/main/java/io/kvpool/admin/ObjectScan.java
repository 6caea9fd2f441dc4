package io.kvpool.admin;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * The leading master's {@code GET /scan} document: its object table counted by a full scan
 * (O(objects), for checks and diagnostics, never on a hot path), to compare with the gauges of
 * {@code /status}, which the master keeps without scanning.
 *
 * @param objects every entry of the object table, pending puts included ({@code /status}
 *     objectCount)
 * @param pending puts not complete yet ({@code counters.pendingObjects})
 * @param readable complete objects with at least one replica on a serving node: what a get can find
 * @param underReplicated complete objects with fewer replicas on serving nodes than wanted ({@code
 *     counters.underReplicated})
 * @param replicas replicas on serving nodes of complete objects
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record ObjectScan(
    String apiVersion,
    long view,
    String state,
    long objects,
    long pending,
    long readable,
    long underReplicated,
    long replicas) {}
