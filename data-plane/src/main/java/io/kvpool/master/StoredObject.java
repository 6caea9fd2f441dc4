package io.kvpool.master;

import java.util.ArrayList;
import java.util.List;

/** One entry of the object table. Guarded by the metadata lock. */
final class StoredObject {
  enum State { PENDING, COMPLETE }

  final String key;
  /** Distinguishes a re-put of the same key from the object a repair was started for. */
  final long generation;
  final int size;
  final int checksum;
  final int wantedReplicas;
  final List<Replica> replicas = new ArrayList<>();
  State state = State.PENDING;
  long pendingDeadlineMillis;
  long leaseExpiryMillis;
  long lastAccessMillis;
  boolean pinned;
  boolean repairInFlight;
  long nextRepairMillis;

  StoredObject(String key, long generation, int size, int checksum, int wantedReplicas) {
    this.key = key;
    this.generation = generation;
    this.size = size;
    this.checksum = checksum;
    this.wantedReplicas = wantedReplicas;
  }

  boolean leased(long nowMillis) {
    return leaseExpiryMillis > nowMillis;
  }

  /** Whether eviction may take this object now. */
  boolean evictable(long nowMillis) {
    return state == State.COMPLETE && !pinned && !leased(nowMillis) && !repairInFlight;
  }

  long allocatedBytes() {
    long b = 0;
    for (Replica r : replicas) {
      b += r.allocatedBytes();
    }
    return b;
  }
}
