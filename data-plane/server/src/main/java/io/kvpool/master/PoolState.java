package io.kvpool.master;

import io.kvpool.protocol.DiskFigures;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ServerState;
import io.kvpool.protocol.StatsReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything the master knows, and the few primitives that keep it consistent: a replica is counted
 * on the registration that holds it, a deleted object leaves a tombstone and a release for each
 * holder, an uncommitted range is quarantined until its grants expired. Guarded by the metadata
 * lock; the feature classes (node registry, eviction, repairs, sweeps) work on it.
 */
final class PoolState {
  private static final Logger LOG = LoggerFactory.getLogger(PoolState.class);

  /**
   * A node with no heartbeat for this long (three of the default 1 s heartbeats), or for half the
   * node TTL when that is shorter, is silent ({@link #silentNodes}).
   */
  static final Duration SILENT_AFTER = Duration.ofSeconds(3);

  /**
   * Replaced whole when eviction settings change live ({@link PoolMetadata#updateEviction}); under
   * the lock.
   */
  MasterConfig config;

  final MasterCounters counters;
  final ReplicaPlacement placement;
  final Random random;
  final long view;
  final ObjectTable objects = new ObjectTable();
  final Map<String, StorageNodeRecord> nodes = new LinkedHashMap<>();
  final Tombstones tombstones;
  final GenerationClock generations = new GenerationClock();
  final Quarantine quarantine = new Quarantine();
  final LinkedHashSet<StoredObject> needsRepair = new LinkedHashSet<>();
  final NodeSweep sweep = new NodeSweep(this);

  /**
   * Volatile: handshakes read it without the metadata lock (a long locked operation must not stall
   * them).
   */
  volatile ServerState serverState = ServerState.RECOVERING;

  long recoveryStartedMillis;
  long lastRegistrationMillis;

  /**
   * The storage nodes the previous leader served, as it recorded them on the Lease (empty when
   * nothing was recorded: the pool's first leader, a sole master): recovery waits for each of them,
   * so a node still on its way to this leader does not turn its objects into misses.
   */
  private final Set<String> previousNodes;

  private long incarnations;

  PoolState(
      MasterConfig config,
      MasterCounters counters,
      ReplicaPlacement placement,
      Random random,
      long view,
      long nowMillis,
      Set<String> previousNodes) {
    this.previousNodes = Set.copyOf(previousNodes);
    this.config = config;
    this.counters = counters;
    this.placement = placement;
    this.random = random;
    this.view = view;
    this.tombstones =
        new Tombstones(
            config.tombstoneTtl().toMillis(),
            config.maxTombstones(),
            counters.tombstonesDropped::inc);
    this.recoveryStartedMillis = nowMillis;
    this.lastRegistrationMillis = nowMillis;
  }

  long nextIncarnation() {
    return ++incarnations;
  }

  /**
   * Until when a node of the previous leader may still come back to this one (one node TTL after
   * this leader began): objects adopted from inventories are not copied before, so a late node's
   * replicas are kept rather than replaced.
   */
  long lateNodesDeadlineMillis() {
    return recoveryStartedMillis + config.nodeTtl().toMillis();
  }

  boolean recovering() {
    return serverState == ServerState.RECOVERING;
  }

  /**
   * The registration that holds {@code r}, or null when the replica belongs to a registration that
   * is gone.
   */
  StorageNodeRecord holder(Replica r) {
    StorageNodeRecord n = nodes.get(r.nodeId());
    return n != null && n.incarnation() == r.incarnation() ? n : null;
  }

  /**
   * Whether an object none of whose replicas can be read now has one on a node that is registering
   * again (its new registration's inventory not yet delivered): not known to be gone, only not yet
   * confirmed, as during a new leader's recovery.
   */
  boolean awaitsRegistration(StoredObject o) {
    for (Replica r : o.replicas()) {
      StorageNodeRecord n = nodes.get(r.nodeId());
      if (n != null && n.state() == NodeState.REGISTERING) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether eviction moves memory replicas to disk rather than deleting objects: every ALIVE node
   * has a disk tier (and there is one).
   */
  boolean evictionSpillsToDisk() {
    boolean any = false;
    for (StorageNodeRecord n : nodes.values()) {
      if (n.state() == NodeState.ALIVE) {
        if (!n.hasDisk()) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }

  /** Whether {@code r} can be read or copied from now. */
  boolean readable(Replica r) {
    StorageNodeRecord n = holder(r);
    return n != null && n.state().serves();
  }

  /**
   * The replicas a get may read: of a complete object those on serving nodes; of a pending put that
   * is visible (a node committed it) only the committed ones; none of any other pending put.
   */
  List<Replica> readableReplicas(StoredObject o) {
    if (!o.visible()) {
      return List.of();
    }
    List<Replica> out = new ArrayList<>(o.replicaCount());
    for (Replica r : o.complete() ? o.replicas() : o.committedReplicas()) {
      if (readable(r)) {
        out.add(r);
      }
    }
    return out;
  }

  Collection<StorageNodeRecord> nodeRecords() {
    return nodes.values();
  }

  /**
   * The serving (ALIVE or DRAINING) nodes with no heartbeat for {@link #SILENT_AFTER}, or for half
   * the node TTL when that is shorter: frozen or cut off, though not dead yet. New replicas,
   * extents and repair copies go to them only when too few other nodes can take them, and readers
   * are sent to their replicas only when no other replica is left. Empty (and nothing allocated) in
   * the common case.
   */
  Set<String> silentNodes(long nowMillis) {
    long silentAfter = Math.min(SILENT_AFTER.toMillis(), config.nodeTtl().toMillis() / 2);
    Set<String> silent = null;
    for (StorageNodeRecord n : nodes.values()) {
      if (n.state().serves() && nowMillis - n.lastHeartbeatMillis() > silentAfter) {
        if (silent == null) {
          silent = new HashSet<>();
        }
        silent.add(n.id());
      }
    }
    return silent == null ? Set.of() : silent;
  }

  void addReplica(StoredObject o, Replica r) {
    o.addReplica(r);
    objects.recount(o);
    StorageNodeRecord n = holder(r);
    if (n != null) {
      n.replicaAdded();
    }
  }

  /**
   * Takes one replica off a live object (it moved or is surplus): freed, and the node told to
   * forget it.
   */
  void retireReplica(StoredObject o, Replica r) {
    o.removeReplica(r);
    objects.recount(o);
    StorageNodeRecord n = holder(r);
    if (n != null) {
      n.replicaRemoved();
      n.free(r);
      n.release(new Release(o.key, o.generation, false));
    }
  }

  /** Forgets a replica whose registration is gone (nothing to free, nobody to tell). */
  void forgetReplica(StoredObject o, Replica r) {
    o.removeReplica(r);
    objects.recount(o);
    StorageNodeRecord n = holder(r);
    if (n != null) {
      n.replicaRemoved();
    }
  }

  /**
   * Deletes an object (remove, eviction, revoke, expiry, a newer generation): a tombstone, a
   * release for every holder, and its ranges freed — or quarantined until {@code
   * grantsExpireAtMillis} when writers may still hold grants for them (puts that never completed).
   * A replica its node committed was written whole and verified: no writer is left to land in its
   * range, which is freed at once.
   */
  void delete(StoredObject o, long nowMillis, boolean quarantineRanges, long grantsExpireAtMillis) {
    objects.remove(o);
    needsRepair.remove(o);
    tombstones.add(o.key, o.generation, nowMillis);
    List<Replica> committed = quarantineRanges ? o.committedReplicas() : List.of();
    for (Replica r : o.replicas()) {
      StorageNodeRecord n = holder(r);
      if (n == null) {
        continue;
      }
      n.replicaRemoved();
      n.release(new Release(o.key, o.generation, true));
      if (quarantineRanges && !committed.contains(r)) {
        quarantine.hold(o, r, grantsExpireAtMillis);
      } else {
        n.free(r);
      }
    }
  }

  /**
   * Completes a pending put with the replicas proven by receipts (PUT_END, a node's COMMIT, an
   * inventory): visible from now, with the unproven replicas released (their ranges quarantined
   * while their writers may still write) and copied later; revoked when none is proven. OK also
   * when it already completed; NOT_FOUND when it is gone.
   */
  ErrorCode completePut(StoredObject o, List<Replica> proven, long now) {
    if (objects.get(o.key) != o) {
      return ErrorCode.NOT_FOUND; // expired or revoked meanwhile
    }
    if (o.complete()) {
      return ErrorCode.OK;
    }
    List<Replica> kept = new ArrayList<>();
    for (Replica r : proven) {
      if (o.hasReplica(r) && readable(r)) {
        kept.add(r);
      }
    }
    if (kept.isEmpty()) {
      delete(o, now, true, o.pendingDeadlineMillis());
      return ErrorCode.WRITE_INCOMPLETE;
    }
    for (Replica r : o.replicas()) {
      if (!kept.contains(r)) {
        StorageNodeRecord n = holder(r);
        forgetReplica(o, r);
        if (n != null) {
          n.release(new Release(o.key, o.generation, false));
          quarantine.hold(o, r, o.pendingDeadlineMillis()); // its writer may still be writing
        }
      }
    }
    objects.markComplete(o);
    objects.touched(o, now);
    boolean onDraining = kept.stream().anyMatch(r -> holder(r).state() == NodeState.DRAINING);
    if (kept.size() < o.wantedReplicas || onDraining) {
      needsRepair.add(o);
    }
    counters.puts.inc();
    return ErrorCode.OK;
  }

  /**
   * An object with no replica left on any live node: gone, but without a tombstone (its node may
   * come back). Counted as lost when gets could find it (complete, or a pending put a node
   * committed): its writer was told it succeeded.
   */
  void lose(StoredObject o) {
    objects.remove(o);
    needsRepair.remove(o);
    if (o.visible()) {
      counters.objectsLost.inc();
    }
  }

  void freeQuarantined(long nowMillis) {
    for (Replica r : quarantine.release(nowMillis)) {
      StorageNodeRecord n = holder(r);
      if (n != null) {
        n.free(r);
      }
    }
  }

  long capacityBytes() {
    return sumOverLiveNodes(StorageNodeRecord::capacityBytes);
  }

  long usedBytes() {
    return sumOverLiveNodes(StorageNodeRecord::usedBytes);
  }

  /** Dead nodes' memory is gone: it counts neither as capacity nor as use. */
  private long sumOverLiveNodes(ToLongFunction<StorageNodeRecord> figure) {
    long sum = 0;
    for (StorageNodeRecord n : nodes.values()) {
      if (n.state() != NodeState.DEAD) {
        sum += figure.applyAsLong(n);
      }
    }
    return sum;
  }

  /**
   * The disk tiers of the nodes that are not dead, as their heartbeats report them (what STATS
   * tells a client of protocol 2.5; the same sum as the {@code disk} tier of /status).
   */
  StatsReply.DiskTotals diskTotals() {
    long capacity = 0;
    long used = 0;
    int tiers = 0;
    int degraded = 0;
    for (StorageNodeRecord n : nodes.values()) {
      DiskFigures disk = n.state() == NodeState.DEAD ? null : n.diskFigures();
      if (disk != null) {
        capacity += disk.capacityBytes();
        used += disk.usedBytes();
        tiers++;
        degraded += disk.healthy() ? 0 : 1;
      }
    }
    return new StatsReply.DiskTotals(capacity, used, tiers, degraded);
  }

  double usageRatio() {
    long c = capacityBytes();
    return c == 0 ? 0 : (double) usedBytes() / c;
  }

  int nodesIn(NodeState state) {
    int n = 0;
    for (StorageNodeRecord r : nodes.values()) {
      n += r.state() == state ? 1 : 0;
    }
    return n;
  }

  /**
   * Ends recovery once every node the previous leader recorded has registered and delivered its
   * inventory; when no record exists, once registrations went quiet after at least one node
   * registered. At the latest one node TTL after the leadership began: a node that has not
   * registered by then would be dead anyway. Until then a miss is answered RECOVERING and nothing
   * is evicted; a leader that heard from no node keeps recovering, so it never answers NOT_FOUND
   * for objects its nodes still hold.
   */
  void maybeEndRecovery(long nowMillis) {
    if (!recovering()) {
      return;
    }
    long since = nowMillis - recoveryStartedMillis;
    boolean settled;
    if (previousNodes.isEmpty()) {
      long quiet = config.recoveryQuietPeriod().toMillis();
      settled =
          nodesIn(NodeState.ALIVE) > 0
              && nowMillis - lastRegistrationMillis >= quiet
              && since >= quiet;
    } else {
      settled = awaitedNodes().isEmpty() && nodesIn(NodeState.REGISTERING) == 0;
    }
    if (settled || since >= config.nodeTtl().toMillis()) {
      serverState = ServerState.SERVING;
      LOG.info(
          "event=recovery_done view={} nodes={} objects={} recovered={} took_ms={} never_came={}",
          view,
          nodesIn(NodeState.ALIVE),
          objects.size(),
          MasterCounters.value(counters.objectsRecovered),
          since,
          awaitedNodes());
    }
  }

  /**
   * The nodes of the previous leader that have not registered with this one yet (their inventory
   * delivered).
   */
  Set<String> awaitedNodes() {
    Set<String> awaited = new TreeSet<>(previousNodes);
    for (StorageNodeRecord n : nodes.values()) {
      if (n.state().serves()) {
        awaited.remove(n.id());
      }
    }
    return awaited;
  }

  /**
   * The storage nodes this leader serves, for the next leader to wait for: every node not declared
   * dead and, while recovering, the previous leader's nodes still on their way.
   */
  Set<String> servedNodes() {
    Set<String> served = new TreeSet<>(recovering() ? previousNodes : Set.of());
    for (StorageNodeRecord n : nodes.values()) {
      if (n.state() != NodeState.DEAD) {
        served.add(n.id());
      }
    }
    return served;
  }
}
