package io.kvpool.master;

import io.kvpool.protocol.BlockMetadata;
import java.util.ArrayList;
import java.util.List;

/** One entry of the object table: one generation of a key. Guarded by the metadata lock. */
final class StoredObject {
  enum State {
    PENDING,
    COMPLETE
  }

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
   * Known from a storage node's inventory rather than completed by a PUT_END here: its put may have
   * been revoked by an earlier leader, so a PUT_END is acknowledged only while the put could not
   * have expired yet.
   */
  boolean adopted;

  /**
   * What the writer said about the KV blocks this value holds (protocol 2.3), for residency events;
   * null if nothing.
   */
  BlockMetadata blockMetadata;

  /** The client's id of the put that created it: a retried PUT_START with it gets this put back. */
  long putId;

  /**
   * PENDING: its writer and every node it was placed on speak protocol 2.2, so the writer may
   * return once the nodes promised their COMMITs, before this master applied them: a lookup of the
   * key waits for them.
   */
  boolean committedByNodes;

  /**
   * A lookup already waited the whole commit wait for this pending put: later ones do not wait
   * again.
   */
  boolean commitWaitSpent;

  /**
   * PENDING: ids of the nodes that committed their replica (a COMMIT, or a re-registration's
   * inventory).
   */
  private List<String> committedBy;

  /** Whether {@link ObjectTable} counts it as under-replicated now. */
  boolean countedUnderReplicated;

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

  /** Records that {@code nodeId} committed its replica of this pending put. */
  void committedBy(String nodeId) {
    if (committedBy == null) {
      committedBy = new ArrayList<>(wantedReplicas);
    }
    if (!committedBy.contains(nodeId)) {
      committedBy.add(nodeId);
    }
  }

  /**
   * Once complete, an object's replicas are its own: the list of nodes that committed them is
   * dropped (about 48 bytes per object that a put created).
   */
  void forgetCommits() {
    committedBy = null;
  }

  /** The replicas their nodes committed. */
  List<Replica> committedReplicas() {
    List<Replica> out = new ArrayList<>(replicas.size());
    for (Replica r : replicas) {
      if (committedBy != null && committedBy.contains(r.nodeId())) {
        out.add(r);
      }
    }
    return out;
  }

  /** Whether every replica placed for this put has been committed by its node. */
  boolean allReplicasCommitted() {
    return committedBy != null
        && !replicas.isEmpty()
        && committedReplicas().size() == replicas.size();
  }

  /**
   * Whether gets find this object: complete, or a pending put one of whose nodes committed its
   * replica. A node commits only a replica it wrote and verified, and the writer returns without
   * PUT_END once every node promised its COMMIT: so a put is readable from its first commit on, and
   * one node lost before its own COMMIT left (killed between its reply and its COMMIT) does not
   * hide a put its writer was told had succeeded. It stays visible (and is counted lost) when the
   * committed replica's node dies.
   */
  boolean visible() {
    return state == State.COMPLETE || committedBy != null && !committedBy.isEmpty();
  }

  /**
   * Whether a lookup should wait for this object: a pending put whose nodes commit it, none of
   * whose COMMITs arrived yet, and that has not stalled a lookup before.
   */
  boolean awaitsNodeCommits() {
    return state == State.PENDING && committedByNodes && !commitWaitSpent && !visible();
  }

  ResidentObject resident() {
    return new ResidentObject(key, generation, blockMetadata);
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
