package io.kvpool.master;

import io.kvpool.protocol.Release;
import io.kvpool.security.NodeKey;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Keeps objects at their wanted replica count: plans copies from a live holder to a newly allocated
 * target (a few per tick), records their outcome, and retires replicas on draining nodes once
 * enough copies exist elsewhere. Guarded by the metadata lock.
 */
final class Repairs {
  static final int MAX_PER_TICK = 64;
  private static final long RETRY_MILLIS = 1_000;

  private final PoolState pool;

  /**
   * Memory the last plan found no node could give a copy while eviction spills to disk: the next
   * tick moves that much of the coldest data to disk first.
   */
  private long roomWanted;

  Repairs(PoolState pool) {
    this.pool = pool;
  }

  /** Bytes of memory to free by moving cold replicas to disk before the next plan; 0 for none. */
  long roomWanted() {
    return roomWanted;
  }

  List<RepairTask> plan(long nowMillis) {
    List<RepairTask> tasks = new ArrayList<>();
    roomWanted = 0;
    if (pool.recovering()) {
      return tasks; // more inventories may still bring replicas back: copy only once the index is
      // whole
    }
    Set<String> silent = pool.silentNodes(nowMillis);
    for (Iterator<StoredObject> it = pool.needsRepair.iterator();
        it.hasNext() && tasks.size() < MAX_PER_TICK; ) {
      StoredObject o = it.next();
      if (o.slot < 0 || !o.complete()) {
        it.remove();
        continue;
      }
      if (o.repairInFlight || o.nextRepairMillis > nowMillis) {
        continue;
      }
      List<Replica> healthy = new ArrayList<>();
      List<Replica> draining = new ArrayList<>();
      for (Replica r : o.replicas()) {
        StorageNodeRecord n = pool.holder(r);
        if (n != null && n.state() == NodeState.ALIVE) {
          healthy.add(r);
        } else if (n != null && n.state() == NodeState.DRAINING) {
          draining.add(r);
        }
      }
      if (healthy.size() >= o.wantedReplicas) {
        // enough copies on ALIVE nodes: retire those on draining nodes, and surplus ones (an
        // inventory and a copy
        // can both bring one back). Safe under a read lease: a retired range is not reused before
        // its node
        // learned of the release, and readers' tokens name the object, which a reuse removes.
        for (Replica r : draining) {
          pool.retireReplica(o, r);
        }
        for (int i = healthy.size() - 1; i >= o.wantedReplicas; i--) {
          pool.retireReplica(o, healthy.get(i));
        }
        it.remove();
        continue;
      }
      if (healthy.isEmpty() && draining.isEmpty()) {
        it.remove(); // nothing to copy from: the sweep loses it, or a returning node brings it back
        continue;
      }
      if (o.adopted && draining.isEmpty() && nowMillis < pool.lateNodesDeadlineMillis()) {
        // its other copies may be on a node of the previous leader that has not registered yet:
        // that node has one node TTL to come back, as a silent node has before it is declared
        // dead, so copy only after it. A drain's copy does not wait: the draining node holds a
        // copy to move now, and a late node's copy would only be one too many, retired as surplus
        o.nextRepairMillis = pool.lateNodesDeadlineMillis();
        continue;
      }
      if (draining.isEmpty()
          && !pool.evictionSpillsToDisk()
          && pool.usedBytes() + SegmentAllocator.blockSize(o.size)
              > (long) (pool.capacityBytes() * pool.config.highWatermark())) {
        // a repair never takes the pool over its high watermark when eviction would then delete
        // other objects to make room for the copy: the object stays under-replicated (the gauge
        // says so) and is copied once room comes back. Where every serving node has a disk tier,
        // eviction moves replicas to disk instead, so the copy goes ahead and the coldest values
        // make way for it. A drain's copies may: the drain was admitted only if they fit
        o.nextRepairMillis = nowMillis + RETRY_MILLIS;
        continue;
      }
      Set<String> holders = new HashSet<>();
      o.replicas().forEach(r -> holders.add(r.nodeId()));
      List<StorageNodeRecord> target = null;
      if (!silent.isEmpty()) { // a copy to a frozen node would only fail after its timeout
        Set<String> avoid = new HashSet<>(holders);
        avoid.addAll(silent);
        target = pool.placement.choose(pool.nodeRecords(), o.size, 1, avoid, nowMillis);
      }
      if (target == null) {
        target = pool.placement.choose(pool.nodeRecords(), o.size, 1, holders, nowMillis);
      }
      if (target == null) {
        // with disk tiers, a node that holds no copy yet gets room by moving cold data to disk
        boolean roomCanBeMade =
            pool.evictionSpillsToDisk()
                && pool.nodeRecords().stream()
                    .anyMatch(n -> n.state() == NodeState.ALIVE && !holders.contains(n.id()));
        if (draining.isEmpty() && !roomCanBeMade) {
          it.remove(); // no node can take another copy; the object stays readable with fewer
          // replicas
        } else {
          o.nextRepairMillis = nowMillis + RETRY_MILLIS;
          if (draining.isEmpty()) {
            roomWanted += SegmentAllocator.blockSize(o.size);
          }
        }
        continue;
      }
      StorageNodeRecord targetNode = target.get(0);
      Replica t = targetNode.allocate(o.size);
      Replica source = healthy.isEmpty() ? draining.get(0) : healthy.get(0);
      for (Replica r : healthy) {
        if (!r.onDisk()) {
          source =
              r; // copy from memory when a copy is there: a disk replica is read from the node's
          // tier
          break;
        }
      }
      o.repairInFlight = true;
      tasks.add(
          new RepairTask(
              o.key,
              o.generation,
              o.size,
              o.checksum,
              o.wantedReplicas,
              source,
              pool.holder(source).endpoint(),
              t,
              targetNode.endpoint(),
              targetNode.key(),
              nowMillis + pool.config.pendingTimeout().toMillis()));
    }
    return tasks;
  }

  /**
   * Records the outcome of a copy; {@code receipt} is the target's, or null when the copy failed.
   */
  void done(RepairTask task, byte[] receipt, long nowMillis) {
    StoredObject o = pool.objects.get(task.key());
    boolean current = o != null && o.generation == task.generation();
    if (current) {
      o.repairInFlight = false;
    }
    StorageNodeRecord target = pool.holder(task.target());
    boolean targetServes = target != null && target.state().serves();
    boolean verified =
        receipt != null
            && targetServes
            && NodeKey.matches(
                target.key().receipt(task.key(), task.generation(), task.size(), task.checksum()),
                receipt);
    if (verified && current) {
      pool.addReplica(o, task.target());
      pool.counters.repairs.inc();
      pool.counters.repairedBytes.inc(task.size());
      pool.needsRepair.add(o); // re-evaluate: retire draining copies, or copy again
      return;
    }
    if (target != null) {
      // the copy may still land late: keep the range until the grant that allows it has expired
      target.release(new Release(task.key(), task.generation(), !current));
      pool.quarantine.hold(task.target(), task.expiresAtMillis());
    }
    if (current) {
      pool.counters.repairFailures.inc();
      o.nextRepairMillis = nowMillis + RETRY_MILLIS;
      pool.needsRepair.add(o);
    }
  }
}
