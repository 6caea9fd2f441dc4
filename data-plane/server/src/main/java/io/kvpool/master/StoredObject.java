package io.kvpool.master;

import java.util.ArrayList;
import java.util.List;

/** One entry of the object table: one generation of a key. Guarded by the metadata lock. */
final class StoredObject {
  enum State { PENDING, COMPLETE }

  final String key;
  /** The put's identity, unique across the pool's life (see {@link GenerationClock}). */
  final long generation;
  final int size;
  final int checksum;
  final int wantedReplicas;
  /** PENDING: the allocated replicas; COMPLETE: the replicas proven by receipts or inventories. */
  final List<Replica> replicas = new ArrayList<>(2);
  State state = State.PENDING;
  long pendingDeadlineMillis;
  long leaseExpiryMillis;
  long lastAccessMillis;
  boolean pinned;
  boolean repairInFlight;
  long nextRepairMillis;
  /**
   * Known from a storage node's inventory rather than completed by a PUT_END here: its put may have been revoked
   * by an earlier leader, so a PUT_END is acknowledged only while the put could not have expired yet.
   */
  boolean adopted;
  /** The client's id of the put that created it: a retried PUT_START with it gets this put back. */
  long putId;
  /** Position in {@link ObjectTable}'s array (sampling and sweeps), -1 when not in the table. */
  int slot = -1;

  StoredObject(String key, long generation, int size, int checksum, int wantedReplicas) {
    this.key = key;
    this.generation = generation;
    this.size = size;
    this.checksum = checksum;
    this.wantedReplicas = wantedReplicas;
  }

  boolean complete() {
    return state == State.COMPLETE;
  }

  boolean leased(long nowMillis) {
    return leaseExpiryMillis > nowMillis;
  }

  /** Whether eviction may take this object now. */
  boolean evictable(long nowMillis) {
    return state == State.COMPLETE && !pinned && !leased(nowMillis) && !repairInFlight;
  }

  Replica replicaOn(String nodeId) {
    for (Replica r : replicas) {
      if (r.nodeId().equals(nodeId)) {
        return r;
      }
    }
    return null;
  }

  long allocatedBytes() {
    long b = 0;
    for (Replica r : replicas) {
      b += r.allocatedBytes();
    }
    return b;
  }
}
