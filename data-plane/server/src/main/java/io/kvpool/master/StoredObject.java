package io.kvpool.master;

import io.kvpool.protocol.BlockMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One entry of the object table: one generation of a key. Guarded by the metadata lock. */
final class StoredObject {
  /**
   * What only a pending put needs: dropped when it completes, so that a complete object (almost
   * every one a master holds) does not carry it.
   */
  static final class Pending {
    /** When the put expires unless completed. */
    long deadlineMillis;

    /**
     * The client's id of the put that created it: a retried PUT_START with it gets this put back.
     */
    long putId;

    /**
     * Its writer and every node it was placed on speak protocol 2.2, so the writer may return once
     * the nodes promised their COMMITs, before this master applied them: a lookup of the key waits
     * for them.
     */
    boolean committedByNodes;

    /**
     * A lookup already waited the whole commit wait for this pending put: later ones do not wait
     * again.
     */
    boolean commitWaitSpent;

    /**
     * Ids of the nodes that committed their replica (a COMMIT, or a re-registration's inventory).
     */
    private List<String> committedBy;
  }

  final String key;

  /** The put's identity, unique across the pool's life (see {@link GenerationClock}). */
  final long generation;

  final int size;
  final int checksum;
  final int wantedReplicas;

  /**
   * PENDING: the allocated replicas; COMPLETE: the replicas proven by receipts or inventories. Null
   * when none, the {@link Replica} itself when one (most objects: no list to hold it), else a
   * {@code Replica[]} in the order they were added.
   */
  private Object replicas;

  /** Non-null exactly while the object is a pending put. */
  private Pending pending;

  long leaseExpiryMillis;

  /** Written through {@link ObjectTable#touched}, which keeps its copy for eviction. */
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

  /** Whether {@link ObjectTable} counts it as under-replicated now. */
  boolean countedUnderReplicated;

  /**
   * The medium its residency events last announced it on: the disk when true (see {@link
   * #onDiskOnly}); meaningful while it is visible.
   */
  boolean announcedOnDisk;

  /** Position in {@link ObjectTable}'s array (sampling and sweeps), -1 when not in the table. */
  int slot = -1;

  /** A pending put of {@code key}. */
  StoredObject(String key, long generation, int size, int checksum, int wantedReplicas) {
    this(key, generation, size, checksum, wantedReplicas, new Pending());
  }

  private StoredObject(
      String key, long generation, int size, int checksum, int wantedReplicas, Pending pending) {
    this.key = key;
    this.generation = generation;
    this.size = size;
    this.checksum = checksum;
    this.wantedReplicas = wantedReplicas;
    this.pending = pending;
  }

  /** A complete object known from a storage node's inventory (see {@link #adopted}). */
  static StoredObject adopted(
      String key, long generation, int size, int checksum, int wantedReplicas) {
    StoredObject o = new StoredObject(key, generation, size, checksum, wantedReplicas, null);
    o.adopted = true;
    return o;
  }

  /** Its replicas, in the order they were added: a snapshot that later changes do not touch. */
  List<Replica> replicas() {
    if (replicas == null) {
      return List.of();
    }
    return replicas instanceof Replica one ? List.of(one) : List.of((Replica[]) replicas);
  }

  int replicaCount() {
    if (replicas == null) {
      return 0;
    }
    return replicas instanceof Replica ? 1 : ((Replica[]) replicas).length;
  }

  boolean hasReplica(Replica r) {
    return indexOf(r) >= 0;
  }

  void addReplica(Replica r) {
    if (replicas == null) {
      replicas = r;
    } else if (replicas instanceof Replica one) {
      replicas = new Replica[] {one, r};
    } else {
      Replica[] all = (Replica[]) replicas;
      Replica[] grown = Arrays.copyOf(all, all.length + 1);
      grown[all.length] = r;
      replicas = grown;
    }
  }

  /** Removes the first replica equal to {@code r}; whether there was one. */
  boolean removeReplica(Replica r) {
    int i = indexOf(r);
    if (i < 0) {
      return false;
    }
    if (replicas instanceof Replica) {
      replicas = null;
      return true;
    }
    Replica[] all = (Replica[]) replicas;
    if (all.length == 2) {
      replicas = all[1 - i];
    } else {
      Replica[] shrunk = new Replica[all.length - 1];
      System.arraycopy(all, 0, shrunk, 0, i);
      System.arraycopy(all, i + 1, shrunk, i, all.length - i - 1);
      replicas = shrunk;
    }
    return true;
  }

  /** Puts {@code r} in the place of the first replica equal to {@code old}, if any. */
  void replaceReplica(Replica old, Replica r) {
    int i = indexOf(old);
    if (i < 0) {
      return;
    }
    if (replicas instanceof Replica) {
      replicas = r;
    } else {
      Replica[] all = ((Replica[]) replicas).clone();
      all[i] = r;
      replicas = all;
    }
  }

  private int indexOf(Replica r) {
    if (replicas == null) {
      return -1;
    }
    if (replicas instanceof Replica one) {
      return one.equals(r) ? 0 : -1;
    }
    Replica[] all = (Replica[]) replicas;
    for (int i = 0; i < all.length; i++) {
      if (all[i].equals(r)) {
        return i;
      }
    }
    return -1;
  }

  boolean complete() {
    return pending == null;
  }

  /** The pending put's own fields; null once complete. */
  Pending pending() {
    return pending;
  }

  /**
   * The deadline of a pending put (0 once complete: a complete object has no writer left whose
   * grants could still be used).
   */
  long pendingDeadlineMillis() {
    return pending == null ? 0 : pending.deadlineMillis;
  }

  /**
   * Completes it: its replicas are its own from now, and what only a pending put needs (the nodes
   * that committed, the put id, the deadline) is dropped.
   */
  void markComplete() {
    pending = null;
  }

  boolean leased(long nowMillis) {
    return leaseExpiryMillis > nowMillis;
  }

  /** Whether eviction may take this object now. */
  boolean evictable(long nowMillis) {
    return pending == null && !pinned && !leased(nowMillis) && !repairInFlight;
  }

  /**
   * Whether a move of this object's memory replicas to disk may take it although it is leased: a
   * lease keeps an object readable, and a disk replica is readable; pending puts, pinned objects
   * and copies stay.
   */
  boolean movableToDiskWhileLeased() {
    return pending == null && !pinned && !repairInFlight;
  }

  /** Records that {@code nodeId} committed its replica of this pending put. */
  void committedBy(String nodeId) {
    if (pending.committedBy == null) {
      pending.committedBy = new ArrayList<>(wantedReplicas);
    }
    if (!pending.committedBy.contains(nodeId)) {
      pending.committedBy.add(nodeId);
    }
  }

  /** The replicas their nodes committed. */
  List<Replica> committedReplicas() {
    List<String> committedBy = pending == null ? null : pending.committedBy;
    List<Replica> out = new ArrayList<>(replicaCount());
    for (Replica r : replicas()) {
      if (committedBy != null && committedBy.contains(r.nodeId())) {
        out.add(r);
      }
    }
    return out;
  }

  /** Whether every replica placed for this put has been committed by its node. */
  boolean allReplicasCommitted() {
    return pending != null
        && pending.committedBy != null
        && replicas != null
        && committedReplicas().size() == replicaCount();
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
    return pending == null || pending.committedBy != null && !pending.committedBy.isEmpty();
  }

  /**
   * Whether a lookup should wait for this object: a pending put whose nodes commit it, some of
   * whose COMMITs have not arrived yet, and that has not stalled a lookup before. A lookup waits
   * for every replica's COMMIT, not only the first: its writer was told all of them were written,
   * and a list of the committed ones alone would leave a get depending on fewer nodes than the put
   * promised until the rest arrive (milliseconds later, each node sends its COMMIT right after its
   * reply).
   */
  boolean awaitsNodeCommits() {
    return pending != null
        && pending.committedByNodes
        && !pending.commitWaitSpent
        && !allReplicasCommitted();
  }

  /** The object as its residency events name it, on the medium they last announced. */
  ResidentObject resident() {
    return new ResidentObject(key, generation, blockMetadata, announcedOnDisk);
  }

  /** Whether it has replicas and all of them are on disk tiers (its medium is then the disk). */
  boolean onDiskOnly() {
    if (replicas == null) {
      return false;
    }
    if (replicas instanceof Replica one) {
      return one.onDisk();
    }
    for (Replica r : (Replica[]) replicas) {
      if (!r.onDisk()) {
        return false;
      }
    }
    return true;
  }

  Replica replicaOn(String nodeId) {
    for (Replica r : replicas()) {
      if (r.nodeId().equals(nodeId)) {
        return r;
      }
    }
    return null;
  }

  long allocatedBytes() {
    long b = 0;
    for (Replica r : replicas()) {
      b += r.allocatedBytes();
    }
    return b;
  }
}
