package io.kvpool.master;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.RegisterInventory;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.Tombstone;
import io.kvpool.security.NodeKey;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Storage nodes: registration with chunked inventories (and the adoption rules of PROTOCOL.md),
 * heartbeats with releases, death after the node TTL, drains. Guarded by the metadata lock.
 */
final class NodeRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(NodeRegistry.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final PoolState pool;

  /**
   * Per node registering now: pending puts its inventory proved a replica of, completed when it is
   * ALIVE again.
   */
  private final Map<String, List<StoredObject>> committedInInventory = new HashMap<>();

  NodeRegistry(PoolState pool) {
    this.pool = pool;
  }

  /**
   * A new registration of a node: a new incarnation with fresh allocators; its inventory follows in
   * chunks.
   */
  RegisterReply register(
      RegisterNode msg,
      VersionInfo version,
      Object connection,
      BooleanSupplier connectionOpen,
      long nowMillis) {
    if (msg.highestViewSeen() > pool.view) {
      throw new RefusedException(
          ErrorCode.STALE_VIEW,
          "node "
              + msg.nodeId()
              + " already follows master view "
              + msg.highestViewSeen()
              + ", newer than this master's view "
              + pool.view);
    }
    StorageNodeRecord old = pool.nodes.get(msg.nodeId());
    if (old != null
        && old.state() != NodeState.DEAD
        && old.connection() != connection
        && old.connectionOpen()) {
      throw new RefusedException(
          ErrorCode.NODE_ID_IN_USE,
          "node id "
              + msg.nodeId()
              + " is registered on another open connection (endpoint "
              + old.endpoint()
              + "); a node id is bound to the"
              + " connection that registered it until that connection closes or the node is declared dead");
    }
    List<StorageSegment> segments = new ArrayList<>();
    for (SegmentInfo s : msg.segments()) {
      segments.add(new StorageSegment(s.id(), new SegmentAllocator(s.size())));
    }
    byte[] registrationId = new byte[16];
    RANDOM.nextBytes(registrationId);
    NodeKey key = NodeKey.random();
    StorageNodeRecord node =
        new StorageNodeRecord(
            msg.nodeId(),
            pool.nextIncarnation(),
            registrationId,
            msg.endpoint(),
            version,
            segments,
            key,
            connection,
            connectionOpen,
            msg.transport(),
            msg.devices(),
            nowMillis);
    node.diskBytes(msg.diskBytes());
    pool.nodes.put(node.id(), node);
    committedInInventory.remove(node.id());
    pool.lastRegistrationMillis = nowMillis;
    LOG.info(
        "event=node_registering node={} endpoint={} version={} segments={} capacity={} replaces={}",
        node.id(),
        node.endpoint(),
        version,
        segments.size(),
        node.capacityBytes(),
        old == null ? "none" : old.state());
    if (!msg.inventoryFollows()) {
      finish(node, nowMillis);
    }
    return new RegisterReply(pool.view, nowMillis, registrationId, key.bytes());
  }

  /** One inventory chunk: tombstones first, then each object by the adoption rules. */
  void inventory(RegisterInventory chunk, long nowMillis) {
    StorageNodeRecord node = null;
    for (StorageNodeRecord n : pool.nodes.values()) {
      if (n.registeredAs(chunk.registrationId())) {
        node = n;
      }
    }
    if (node == null || node.state() != NodeState.REGISTERING) {
      throw new RefusedException(
          ErrorCode.UNKNOWN_NODE, "no registration in progress with that id: register again");
    }
    for (Tombstone t : chunk.tombstones()) {
      pool.tombstones.add(t.key(), t.generation(), nowMillis);
      StoredObject o = pool.objects.get(t.key());
      if (o != null && o.generation <= t.generation()) {
        pool.delete(o, nowMillis, !o.complete(), o.pendingDeadlineMillis());
      }
    }
    for (InventoryObject io : chunk.objects()) {
      adopt(node, io, nowMillis);
    }
    node.heartbeat(nowMillis); // a node delivering a long inventory is not silent
    pool.lastRegistrationMillis = nowMillis;
    if (chunk.last()) {
      finish(node, nowMillis);
    }
  }

  private void finish(StorageNodeRecord node, long nowMillis) {
    node.state(NodeState.ALIVE);
    for (StoredObject o : committedInInventory.getOrDefault(node.id(), List.of())) {
      if (o.allReplicasCommitted()) {
        pool.completePut(o, o.committedReplicas(), nowMillis);
      }
    }
    committedInInventory.remove(node.id());
    // replicas of the node's earlier registration its inventory did not confirm are gone
    pool.sweep.request();
    LOG.info(
        "event=node_registered node={} endpoint={} replicas={}",
        node.id(),
        node.endpoint(),
        node.replicaCount());
  }

  /** The adoption rules of PROTOCOL.md ("Registration"). */
  private void adopt(StorageNodeRecord node, InventoryObject io, long nowMillis) {
    pool.generations.observe(io.generation());
    if (pool.tombstones.covers(io.key(), io.generation())) {
      node.release(new Release(io.key(), io.generation(), true));
      return;
    }
    StoredObject o = pool.objects.get(io.key());
    if (o != null && o.generation > io.generation()) {
      node.release(
          new Release(io.key(), io.generation(), true)); // an older generation of a re-put key
      return;
    }
    if (o != null && o.generation < io.generation()) {
      pool.delete(
          o, nowMillis, !o.complete(), o.pendingDeadlineMillis()); // the newest generation wins
      o = null;
    }
    Replica replica = Replica.of(node.id(), node.incarnation(), io.slices());
    if (o == null) {
      if (io.wantedReplicas() < 1 || !node.reserve(io.slices())) {
        node.release(new Release(io.key(), io.generation(), false));
        return;
      }
      o =
          StoredObject.adopted(
              io.key(), io.generation(), io.size(), io.checksum(), io.wantedReplicas());
      o.blockMetadata = io.metadata(); // before it becomes readable: its announcement names it
      pool.objects.touched(o, nowMillis);
      // readers may hold tokens a previous master issued: protect the object for one lease
      o.leaseExpiryMillis = nowMillis + pool.config.leaseTtl().toMillis();
      // the replica before the object becomes readable: its announcement names its medium
      o.addReplica(replica);
      pool.objects.add(o);
      pool.objects.recount(o);
      node.replicaAdded();
      pool.counters.objectsRecovered.inc();
      if (o.wantedReplicas > 1) {
        pool.needsRepair.add(o);
      }
      return;
    }
    Replica known = o.replicaOn(node.id());
    if (known != null) {
      o.removeReplica(known); // the earlier registration's record of it
      pool.objects.recount(o);
      if (known.onDisk() && !io.onDisk() && node.hasDisk()) {
        // moved to disk here before the node heard of it: it moves now (the memory range is not
        // this master's)
        pool.addReplica(o, Replica.onDisk(node.id(), node.incarnation()));
        node.release(Release.toDisk(io.key(), io.generation()));
        return;
      }
      if (known.slices().equals(io.slices()) && node.reserve(io.slices())) {
        pool.addReplica(o, replica);
        if (!o.complete()) {
          // a verified replica of a pending put: as good as its node's COMMIT, which may have been
          // lost with the
          // connection this registration replaces; the put completes once the node serves again
          // (finish)
          pool.objects.commit(o, node.id());
          committedInInventory.computeIfAbsent(node.id(), id -> new ArrayList<>()).add(o);
        }
      } else {
        node.release(new Release(io.key(), io.generation(), false));
        pool.needsRepair.add(o);
      }
      return;
    }
    if (o.size == io.size()
        && o.checksum == io.checksum()
        && o.complete()
        && o.replicaCount() < o.wantedReplicas
        && node.reserve(io.slices())) {
      pool.addReplica(o, replica);
      if (o.replicaCount() >= o.wantedReplicas) {
        pool.needsRepair.remove(o); // the copy an earlier inventory lacked came back
      }
      return;
    }
    node.release(new Release(io.key(), io.generation(), false)); // enough copies elsewhere
  }

  HeartbeatReply heartbeat(Heartbeat hb, long nowMillis) {
    StorageNodeRecord node = pool.nodes.get(hb.nodeId());
    if (node == null
        || !node.registeredAs(hb.registrationId())
        || node.state() == NodeState.DEAD
        || hb.highestViewSeen() > pool.view) {
      return HeartbeatReply.unknown(pool.view, nowMillis);
    }
    node.heartbeat(nowMillis);
    hb.disk().ifPresent(node::diskFigures);
    List<Release> releases = node.takeReleases(ProtocolLimits.MAX_RELEASES);
    return new HeartbeatReply(true, pool.view, nowMillis, node.hasReleases(), releases);
  }

  /**
   * After this master was paused for {@code pausedMillis}: every live node counts as heard from
   * now, so none is declared dead for a silence that was the master's own.
   */
  void forgiveSilence(long nowMillis, long pausedMillis) {
    int nodes = 0;
    for (StorageNodeRecord n : pool.nodes.values()) {
      if (n.state() != NodeState.DEAD) {
        n.heartbeat(nowMillis);
        nodes++;
      }
    }
    LOG.warn(
        "event=master_paused paused_ms={} nodes_forgiven={} reason=\"no tick for longer than the pause"
            + " threshold: the master was stopped, not its nodes\"",
        pausedMillis,
        nodes);
  }

  /** Declares nodes silent for longer than the node TTL dead; a sweep then drops their replicas. */
  /**
   * This master stood still for {@code stalledMillis} of real time since its last tick. A stall of
   * more than half a node TTL moves every live node's last heartbeat forward by it (never past
   * now): a node is declared dead only after a TTL of silence while the master could hear it.
   */
  void excuseStall(long stalledMillis, long nowMillis) {
    long ttl = pool.config.nodeTtl().toMillis();
    if (stalledMillis <= ttl / 2) {
      return;
    }
    LOG.warn(
        "event=master_stalled stalled_ms={} node_ttl_ms={}: the nodes' silence meanwhile is"
            + " excused",
        stalledMillis,
        ttl);
    for (StorageNodeRecord n : pool.nodes.values()) {
      if (n.state() != NodeState.DEAD) {
        n.heartbeat(Math.min(nowMillis, n.lastHeartbeatMillis() + stalledMillis));
      }
    }
  }

  void expireSilentNodes(long nowMillis) {
    long ttl = pool.config.nodeTtl().toMillis();
    for (StorageNodeRecord n : pool.nodes.values()) {
      if (n.state() != NodeState.DEAD && nowMillis - n.lastHeartbeatMillis() > ttl) {
        n.state(NodeState.DEAD);
        pool.sweep.request();
        LOG.warn(
            "event=node_dead node={} silent_ms={} replicas={}",
            n.id(),
            nowMillis - n.lastHeartbeatMillis(),
            n.replicaCount());
      }
    }
  }

  /**
   * Stops new placements on the node and re-replicates its objects elsewhere. Refused (with the
   * reason) when the node is not live, when the other ALIVE nodes are fewer than the most replicas
   * any object wants, or when the bytes it holds do not fit in the free memory of the other ALIVE
   * nodes: such a drain could never finish.
   */
  void drain(String nodeId) {
    StorageNodeRecord node = pool.nodes.get(nodeId);
    if (node == null || !node.state().serves()) {
      throw new RefusedException(ErrorCode.UNKNOWN_NODE, "no live storage node '" + nodeId + "'");
    }
    if (node.state() == NodeState.DRAINING) {
      return;
    }
    int others = pool.nodesIn(NodeState.ALIVE) - 1;
    int wanted = pool.objects.maxWantedReplicas();
    if (others < wanted) {
      throw new RefusedException(
          ErrorCode.NOT_ENOUGH_NODES,
          "cannot drain node "
              + nodeId
              + ": objects need "
              + wanted
              + " replicas and only "
              + others
              + " other node(s) are ALIVE; add a node first");
    }
    long free = 0;
    for (StorageNodeRecord n : pool.nodes.values()) {
      if (n != node && n.state() == NodeState.ALIVE) {
        free += n.capacityBytes() - n.usedBytes();
      }
    }
    if (node.usedBytes() > free) {
      throw new RefusedException(
          ErrorCode.NO_SPACE,
          "cannot drain node "
              + nodeId
              + ": its "
              + node.usedBytes()
              + " bytes of replicas do not fit in the "
              + free
              + " bytes free on the other ALIVE nodes; add a node or"
              + " free space first");
    }
    node.state(NodeState.DRAINING);
    pool.sweep.request();
    LOG.info("event=node_draining node={} replicas_to_move={}", nodeId, node.replicaCount());
  }
}
