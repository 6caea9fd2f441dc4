package io.kvpool.cli;

/** A storage node of a {@link LocalPool}: its id, OS process and announced endpoints. */
public record StorageNodeProcess(
    String id, PoolProcess process, String rpcAddress, String adminAddress) {}
