package io.kvpool.master;

/**
 * Walks the object table in bounded steps after a node died, drained or re-registered: drops
 * replicas whose registration is gone, queues objects left short (or on a draining node) for
 * repair, and loses objects left with no replica. Bounded steps keep the metadata lock free for
 * puts and gets whatever the table's size; until the sweep reaches an object, reads simply skip its
 * unreadable replicas. Guarded by the metadata lock.
 */
final class NodeSweep {
  static final int STEP = 10_000;

  private final PoolState pool;
  private int cursor = -1; // -1: idle
  private boolean again;

  NodeSweep(PoolState pool) {
    this.pool = pool;
  }

  /**
   * Asks for a full pass (restarted from the beginning if one is under way, so no object is
   * missed).
   */
  void request() {
    if (cursor < 0) {
      cursor = 0;
    } else {
      again = true;
    }
  }

  boolean running() {
    return cursor >= 0;
  }

  /** Processes up to {@link #STEP} objects. */
  void step(long nowMillis) {
    if (cursor < 0) {
      return;
    }
    int end = cursor + STEP;
    while (cursor < end) {
      StoredObject o = pool.objects.slot(cursor);
      if (o == null) {
        cursor = again ? 0 : -1;
        again = false;
        return;
      }
      if (!visit(o, nowMillis)) {
        cursor++; // else the last object moved into this slot: visit it next
      }
    }
  }

  /** True when the object left the table. */
  private boolean visit(StoredObject o, long nowMillis) {
    boolean shrank = false;
    boolean draining = false;
    for (Replica r : o.replicas()) {
      StorageNodeRecord n = pool.nodes.get(r.nodeId());
      if (n != null && n.state() == NodeState.REGISTERING) {
        continue; // its inventory may still confirm this replica
      }
      if (n == null || n.incarnation() != r.incarnation() || n.state() == NodeState.DEAD) {
        pool.forgetReplica(o, r);
        shrank = true;
      } else if (n.state() == NodeState.DRAINING) {
        draining = true;
      }
    }
    if (o.replicaCount() == 0) {
      pool.lose(o);
      return true;
    }
    if ((shrank || draining || o.replicaCount() < o.wantedReplicas) && o.complete()) {
      // short ones too: a node that joined or came back may be the room a copy lacked
      pool.needsRepair.add(o);
    }
    if (shrank && !o.complete() && o.allReplicasCommitted()) {
      // the replicas still awaited were on a node that is gone: the put is done with those its
      // nodes committed
      pool.completePut(o, o.committedReplicas(), nowMillis);
    }
    return false;
  }
}
