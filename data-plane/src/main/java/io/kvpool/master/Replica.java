package io.kvpool.master;

/** One copy of an object: which node, segment and range. */
public record Replica(String nodeId, int segmentId, long offset, int length) {
}
