package io.kvpool.operator.pool;

/**
 * What the leading master reports on its admin {@code /status}: the pool's live figures as the data
 * plane sees them. {@code leader} is the pod (or node) name of the responding leader when it says so.
 */
public record MasterStatus(
    String poolId,
    String role,
    String leader,
    long viewNumber,
    String releaseVersion,
    String protocolVersion,
    int nodes,
    int aliveNodes,
    long capacityBytes,
    long usedBytes,
    long objectCount) {
}
