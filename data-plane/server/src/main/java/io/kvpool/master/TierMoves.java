package io.kvpool.master;

import io.kvpool.protocol.Release;

/**
 * Moves replicas between a storage node's memory and its disk tier (protocol 2.3). Eviction asks it
 * first: a replica on a node with a disk tier is not deleted but moved there — its memory range is
 * freed here, and the node is told ({@link Release#toDisk}) and writes the value to disk before
 * that range can be overwritten (a WRITE into the range spills it first). A disk replica counts
 * toward the object's replica count like any other, is read whole with READ_OBJECT, and is copied
 * from the node's tier by REPLICATE. The node reports the disk replicas it loses ({@link
 * #dropped}). Guarded by the metadata lock.
 */
final class TierMoves {
  private final PoolState pool;

  TierMoves(PoolState pool) {
    this.pool = pool;
  }

  /** Whether eviction can make memory room with this object: it has a replica in memory. */
  static boolean inMemory(StoredObject o) {
    for (Replica r : o.replicas()) {
      if (!r.onDisk()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether every memory replica of {@code o} can move to disk (its node serves and has a disk
   * tier), so that a move keeps all its replicas: what a leased object needs to be moved.
   */
  boolean canMoveToDisk(StoredObject o) {
    boolean any = false;
    for (Replica r : o.replicas()) {
      if (r.onDisk()) {
        continue;
      }
      StorageNodeRecord n = pool.holder(r);
      if (n == null || !n.hasDisk() || !n.state().serves()) {
        return false;
      }
      any = true;
    }
    return any;
  }

  /**
   * Takes an evicted object's replicas out of memory without losing it: those on nodes with a disk
   * tier move there, the others (nodes without one) are retired. False, with nothing changed, when
   * none of its memory replicas is on a node with a disk tier (then the object is deleted, as
   * without tiers).
   */
  boolean moveToDisk(StoredObject o) {
    boolean any = false;
    for (Replica r : o.replicas()) {
      StorageNodeRecord n = pool.holder(r);
      any |= !r.onDisk() && n != null && n.hasDisk() && n.state().serves();
    }
    if (!any) {
      return false;
    }
    for (Replica r : o.replicas()) {
      if (r.onDisk()) {
        continue;
      }
      StorageNodeRecord n = pool.holder(r);
      if (n != null && n.hasDisk() && n.state().serves()) {
        o.replaceReplica(r, Replica.onDisk(r.nodeId(), r.incarnation()));
        n.free(r);
        n.release(Release.toDisk(o.key, o.generation));
      } else {
        pool.retireReplica(o, r);
      }
    }
    pool.objects.recount(o);
    return true;
  }

  /**
   * A node's disk tier lost its replica of (key, generation): reclaimed under its cap, a record
   * that failed its checksum, a move that could not be written. The replica is forgotten; an object
   * left without replicas is gone, as after an eviction. A report of anything else (a replica in
   * memory, another generation) is ignored.
   */
  void dropped(StorageNodeRecord node, String key, long generation, long nowMillis) {
    StoredObject o = pool.objects.get(key);
    if (o == null || o.generation != generation) {
      return;
    }
    Replica r = o.replicaOn(node.id());
    if (r == null || !r.onDisk() || r.incarnation() != node.incarnation()) {
      return;
    }
    if (o.replicaCount() == 1) {
      pool.counters.cacheSignals.evicted(o.key, o.size, nowMillis);
      pool.delete(o, nowMillis, false, 0);
      pool.counters.evictions.inc();
      return;
    }
    pool.forgetReplica(o, r);
    if (o.replicaCount() < o.wantedReplicas) {
      pool.needsRepair.add(o);
    }
  }
}
