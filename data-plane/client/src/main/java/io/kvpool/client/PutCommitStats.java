package io.kvpool.client;

/**
 * How one client's puts were committed: {@code byNodes} by their storage nodes, which sent their
 * receipts to the master before answering (protocol 2.2: one master exchange per put), {@code
 * byPutEnd} by the client's own PUT_END (a node of an older protocol, a replica that failed, a
 * grant close to its expiry).
 */
public record PutCommitStats(long byNodes, long byPutEnd) {}
