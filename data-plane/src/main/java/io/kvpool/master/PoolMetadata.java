package io.kvpool.master;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.GrantSigner;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.InventoryEntry;
import io.kvpool.protocol.Location;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.StatsReply;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * All master state: storage nodes, their allocators and the object table. Every method takes the one lock (this
 * object's monitor): master operations are short and in-memory, and a single lock keeps the invariants (an
 * allocated range belongs to exactly one replica; a leased, pinned or pending object is never freed) easy to see.
 */
public final class PoolMetadata {
  private static final Logger LOG = LoggerFactory.getLogger(PoolMetadata.class);
  /** Fixed until leader election arrives; storage nodes already compare it on every heartbeat. */
  public static final long VIEW_NUMBER = 1;
  private static final int MAX_REPAIRS_PER_TICK = 64;
  private static final long REPAIR_RETRY_MILLIS = 1_000;
  private static final long FRUITLESS_EVICTION_PAUSE_MILLIS = 100;

  private final MasterConfig config;
  private final LongSupplier clock;
  private final ReplicaPlacement placement;
  private final MasterCounters counters;
  private final Map<String, StorageNodeRecord> nodes = new LinkedHashMap<>();
  private final Map<String, StoredObject> objects = new HashMap<>();
  private final Set<String> pendingKeys = new HashSet<>();
  private final Set<String> needsRepair = new LinkedHashSet<>();
  private final List<Quarantined> quarantine = new ArrayList<>();
  private long nextGeneration = 1;
  private long lastFruitlessEvictionMillis = Long.MIN_VALUE / 2;

  /** A freed range that is reused only after {@code releaseAtMillis}, when no grant for it is valid any more. */
  private record Quarantined(Replica replica, long incarnation, long releaseAtMillis) {
  }

  public PoolMetadata(MasterConfig config, LongSupplier clockMillis, ReplicaPlacement placement, MasterCounters counters) {
    this.config = config;
    this.clock = clockMillis;
    this.placement = placement;
    this.counters = counters;
  }

  public MasterConfig config() {
    return config;
  }

  // ---- storage nodes ----

  /**
   * Registers (or re-registers) a node. Replicas the master had on that node survive only if the node's inventory
   * still lists them; unknown inventory entries are adopted as complete objects.
   */
  public synchronized RegisterReply register(RegisterNode msg, VersionInfo version) {
    long now = clock.getAsLong();
    StorageNodeRecord old = nodes.get(msg.nodeId());
    List<StorageSegment> segments = new ArrayList<>();
    for (SegmentInfo s : msg.segments()) {
      segments.add(new StorageSegment(s.id(), new SegmentAllocator(s.size())));
    }
    byte[] grantKey = GrantSigner.newKey();
    StorageNodeRecord node = new StorageNodeRecord(msg.nodeId(), msg.endpoint(), version, segments,
        new GrantSigner(grantKey), now);
    Map<Replica, InventoryEntry> inventory = replicasInInventory(msg);
    if (old != null && old.state() != NodeState.DEAD) {
      // the process restarted within its TTL: whatever its inventory does not list is gone
      dropReplicasOf(msg.nodeId(), inventory.keySet(), now);
    }
    nodes.put(node.id(), node);
    int adopted = 0;
    for (Map.Entry<Replica, InventoryEntry> e : inventory.entrySet()) {
      Replica r = e.getKey();
      InventoryEntry first = e.getValue();
      StoredObject o = objects.get(first.key());
      boolean known = o != null && o.replicas.contains(r);
      if (!reserve(node, r)) {
        if (known) {
          forgetReplica(o, r);
        }
        continue;
      }
      if (known) {
        continue;
      }
      if (o == null) {
        StoredObject adoptedObject = new StoredObject(first.key(), nextGeneration++, first.valueSize(),
            first.checksum(), 1);
        adoptedObject.state = StoredObject.State.COMPLETE;
        adoptedObject.lastAccessMillis = now;
        // a recovered object is protected for one lease TTL, like a freshly read one
        adoptedObject.leaseExpiryMillis = now + config.leaseTtl().toMillis();
        adoptedObject.replicas.add(r);
        objects.put(adoptedObject.key, adoptedObject);
        adopted++;
      } else if (o.state == StoredObject.State.COMPLETE && o.size == first.valueSize()
          && o.checksum == first.checksum() && o.replicas.size() < o.wantedReplicas) {
        o.replicas.add(r);
      } else {
        free(r);
      }
    }
    LOG.info("event=node_registered node={} endpoint={} version={} segments={} capacity={} inventory={} adopted={}",
        node.id(), node.endpoint(), version, segments.size(), node.capacityBytes(), inventory.size(), adopted);
    return new RegisterReply(VIEW_NUMBER, grantKey);
  }

  /**
   * Groups the node's inventory slices by key into replicas; only keys whose slices cover exactly [0, size) form a
   * replica, the rest cannot be served and are released. Maps each replica to one of its entries.
   */
  private static Map<Replica, InventoryEntry> replicasInInventory(RegisterNode msg) {
    Map<String, List<InventoryEntry>> byKey = new HashMap<>();
    for (InventoryEntry e : msg.inventory()) {
      byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
    }
    Map<Replica, InventoryEntry> out = new HashMap<>();
    for (List<InventoryEntry> entries : byKey.values()) {
      entries.sort(Comparator.comparingInt(InventoryEntry::valueOffset));
      long covered = 0;
      boolean consistent = true;
      for (InventoryEntry e : entries) {
        consistent &= e.valueOffset() == covered && e.valueSize() == entries.get(0).valueSize()
            && e.checksum() == entries.get(0).checksum();
        covered += e.length();
      }
      if (consistent && covered == entries.get(0).valueSize()) {
        out.put(new Replica(msg.nodeId(), entries.stream().map(InventoryEntry::slice).toList()), entries.get(0));
      }
    }
    return out;
  }

  /** Claims a replica's ranges in a freshly registered node's allocators; all or nothing. */
  private static boolean reserve(StorageNodeRecord node, Replica r) {
    List<Slice> done = new ArrayList<>();
    for (Slice s : r.slices()) {
      StorageSegment seg = node.segment(s.segmentId());
      if (seg == null || !seg.allocator().reserve(s.offset(), s.length())) {
        for (Slice d : done) {
          node.segment(d.segmentId()).allocator().free(d.offset());
        }
        r.slices().forEach(x -> node.released(new Location(x.segmentId(), x.offset())));
        return false;
      }
      done.add(s);
    }
    return true;
  }

  public synchronized HeartbeatReply heartbeat(String nodeId) {
    StorageNodeRecord node = nodes.get(nodeId);
    if (node == null || node.state() == NodeState.DEAD) {
      return new HeartbeatReply(false, VIEW_NUMBER, List.of());
    }
    node.heartbeat(clock.getAsLong());
    return new HeartbeatReply(true, VIEW_NUMBER, node.takeReleased(10_000));
  }

  /** Stops new placements on the node and re-replicates its objects elsewhere; false if the node is unknown. */
  public synchronized boolean drain(String nodeId) {
    StorageNodeRecord node = nodes.get(nodeId);
    if (node == null || node.state() == NodeState.DEAD) {
      return false;
    }
    if (node.state() == NodeState.ALIVE) {
      node.state(NodeState.DRAINING);
      for (StoredObject o : objects.values()) {
        if (onNode(o, nodeId)) {
          needsRepair.add(o.key);
        }
      }
      LOG.info("event=node_draining node={} objects_to_move={}", nodeId, needsRepair.size());
    }
    return true;
  }

  // ---- puts ----

  /**
   * Allocates and records under the lock; signs the grants (an HMAC per slice) after releasing it, so concurrent
   * requests do not wait for the signing.
   */
  public List<PutStartResult> putStart(List<PutStartItem> items) {
    List<Placement> placed = new ArrayList<>(items.size());
    synchronized (this) {
      long now = clock.getAsLong();
      for (PutStartItem item : items) {
        placed.add(putStartOne(item, now));
      }
      if (usageRatio() > config.highWatermark() && now - lastFruitlessEvictionMillis > FRUITLESS_EVICTION_PAUSE_MILLIS) {
        evict(now, 0);
      }
    }
    List<PutStartResult> results = new ArrayList<>(placed.size());
    for (Placement p : placed) {
      results.add(p.sign());
    }
    return results;
  }

  /** The outcome of placing one PutStart item: a refusal, or replicas allocated but not yet signed. */
  private record Placement(PutStartResult refusal, String key, long expiresAtMillis, List<StorageNodeRecord> nodes,
                           List<Replica> replicas) {
    static Placement refused(ErrorCode code, String message) {
      return new Placement(new PutStartResult(code, message, List.of()), null, 0, List.of(), List.of());
    }

    PutStartResult sign() {
      if (refusal != null) {
        return refusal;
      }
      List<ReplicaGrant> grants = new ArrayList<>(replicas.size());
      for (int i = 0; i < replicas.size(); i++) {
        grants.add(grant(nodes.get(i), key, replicas.get(i), expiresAtMillis));
      }
      return new PutStartResult(ErrorCode.OK, "", grants);
    }
  }

  private Placement putStartOne(PutStartItem item, long now) {
    if (objects.containsKey(item.key())) {
      return Placement.refused(ErrorCode.ALREADY_EXISTS, "key already stored; remove it first to replace it");
    }
    List<StorageNodeRecord> choices = placement.choose(nodes.values(), item.size(), item.replicas(), Set.of());
    if (choices == null && evict(now, (long) item.replicas() * SegmentAllocator.blockSize(item.size())) > 0) {
      choices = placement.choose(nodes.values(), item.size(), item.replicas(), Set.of());
    }
    if (choices == null) {
      return Placement.refused(ErrorCode.NO_SPACE, noSpaceMessage(item));
    }
    StoredObject o = new StoredObject(item.key(), nextGeneration++, item.size(), item.checksum(), item.replicas());
    o.pendingDeadlineMillis = now + config.pendingTimeout().toMillis();
    o.lastAccessMillis = now;
    for (StorageNodeRecord node : choices) {
      o.replicas.add(new Replica(node.id(), node.allocate(item.size())));
    }
    objects.put(o.key, o);
    pendingKeys.add(o.key);
    return new Placement(null, item.key(), o.pendingDeadlineMillis, List.copyOf(choices), List.copyOf(o.replicas));
  }

  private String noSpaceMessage(PutStartItem item) {
    long alive = nodes.values().stream().filter(n -> n.state() == NodeState.ALIVE).count();
    long mostFree = nodes.values().stream().filter(n -> n.state() == NodeState.ALIVE)
        .mapToLong(n -> n.capacityBytes() - n.usedBytes()).max().orElse(0);
    return "no room for " + item.size() + " bytes x " + item.replicas() + " replicas: " + alive
        + " alive nodes, at most " + mostFree + " bytes free on one node (after eviction); add storage, lower the"
        + " replica count, or store smaller values";
  }

  private static ReplicaGrant grant(StorageNodeRecord node, String key, Replica r, long expiresAtMillis) {
    List<SliceGrant> slices = new ArrayList<>(r.slices().size());
    for (Slice s : r.slices()) {
      byte[] token = node.signer().sign(key, s.segmentId(), s.offset(), s.length(), expiresAtMillis);
      slices.add(new SliceGrant(s.segmentId(), s.offset(), s.length(), s.valueOffset(), token));
    }
    return new ReplicaGrant(node.id(), node.endpoint(), expiresAtMillis, slices);
  }

  public synchronized List<ErrorCode> putEnd(List<String> keys) {
    long now = clock.getAsLong();
    List<ErrorCode> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      StoredObject o = objects.get(key);
      if (o == null) {
        out.add(ErrorCode.NOT_FOUND);
      } else if (o.state == StoredObject.State.COMPLETE) {
        out.add(ErrorCode.OK);
      } else {
        o.state = StoredObject.State.COMPLETE;
        o.lastAccessMillis = now;
        pendingKeys.remove(key);
        if (o.replicas.size() < o.wantedReplicas) {
          needsRepair.add(key);
        }
        counters.puts.inc();
        out.add(ErrorCode.OK);
      }
    }
    return out;
  }

  public synchronized List<ErrorCode> putRevoke(List<String> keys) {
    List<ErrorCode> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      StoredObject o = objects.get(key);
      if (o == null) {
        out.add(ErrorCode.NOT_FOUND);
      } else if (o.state != StoredObject.State.PENDING) {
        out.add(ErrorCode.INVALID_STATE);
      } else {
        delete(o);
        out.add(ErrorCode.OK);
      }
    }
    return out;
  }

  // ---- reads and housekeeping ----

  public synchronized List<ReplicaListResult> getReplicas(List<String> keys) {
    long now = clock.getAsLong();
    List<ReplicaListResult> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      counters.gets.inc();
      StoredObject o = objects.get(key);
      if (o == null || o.state != StoredObject.State.COMPLETE || o.replicas.isEmpty()) {
        counters.getMisses.inc();
        out.add(ReplicaListResult.missing(ErrorCode.NOT_FOUND));
        continue;
      }
      counters.getHits.inc();
      o.lastAccessMillis = now;
      o.leaseExpiryMillis = Math.max(o.leaseExpiryMillis, now + config.leaseTtl().toMillis());
      List<ReplicaLocation> locations = new ArrayList<>(o.replicas.size());
      for (Replica r : o.replicas) {
        locations.add(new ReplicaLocation(r.nodeId(), nodes.get(r.nodeId()).endpoint(), r.slices()));
      }
      out.add(new ReplicaListResult(ErrorCode.OK, o.size, o.checksum, config.leaseTtl().toMillis(), locations));
    }
    return out;
  }

  public synchronized List<ErrorCode> exists(List<String> keys) {
    List<ErrorCode> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      StoredObject o = objects.get(key);
      out.add(o != null && o.state == StoredObject.State.COMPLETE ? ErrorCode.OK : ErrorCode.NOT_FOUND);
    }
    return out;
  }

  public synchronized List<ErrorCode> remove(List<String> keys) {
    long now = clock.getAsLong();
    List<ErrorCode> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      StoredObject o = objects.get(key);
      if (o == null) {
        out.add(ErrorCode.NOT_FOUND);
      } else if (o.state != StoredObject.State.COMPLETE) {
        out.add(ErrorCode.INVALID_STATE);
      } else if (o.leased(now) || o.repairInFlight) {
        out.add(ErrorCode.OBJECT_LEASED);
      } else {
        delete(o);
        out.add(ErrorCode.OK);
      }
    }
    return out;
  }

  /** Removes every complete object that is not leased or being copied; returns how many. */
  public synchronized long removeAll() {
    long now = clock.getAsLong();
    List<StoredObject> victims = new ArrayList<>();
    for (StoredObject o : objects.values()) {
      if (o.state == StoredObject.State.COMPLETE && !o.leased(now) && !o.repairInFlight) {
        victims.add(o);
      }
    }
    victims.forEach(this::delete);
    return victims.size();
  }

  public synchronized ErrorCode pin(String key, boolean pinned) {
    StoredObject o = objects.get(key);
    if (o == null) {
      return ErrorCode.NOT_FOUND;
    }
    o.pinned = pinned;
    return ErrorCode.OK;
  }

  public synchronized StatsReply stats() {
    int alive = 0;
    for (StorageNodeRecord n : nodes.values()) {
      if (n.state() != NodeState.DEAD) {
        alive++;
      }
    }
    return new StatsReply(capacityBytes(), usedBytes(), objects.size(), alive);
  }

  // ---- periodic work ----

  /**
   * Declares silent nodes dead, revokes abandoned puts, evicts above the watermark and returns replica copies to
   * start (targets already allocated and marked in flight).
   */
  public synchronized List<RepairTask> tick() {
    long now = clock.getAsLong();
    for (StorageNodeRecord n : nodes.values()) {
      if (n.state() != NodeState.DEAD && now - n.lastHeartbeatMillis() > config.nodeTtl().toMillis()) {
        n.state(NodeState.DEAD);
        int before = needsRepair.size();
        dropReplicasOf(n.id(), Set.of(), now);
        LOG.warn("event=node_dead node={} silent_ms={} objects_to_repair={}", n.id(), now - n.lastHeartbeatMillis(),
            needsRepair.size() - before);
      }
    }
    for (Iterator<String> it = pendingKeys.iterator(); it.hasNext(); ) {
      StoredObject o = objects.get(it.next());
      if (o != null && o.pendingDeadlineMillis < now) {
        it.remove();
        delete(o);
        counters.pendingExpired.inc();
      }
    }
    releaseQuarantined(now);
    if (usageRatio() > config.highWatermark()) {
      evict(now, 0);
    }
    return planRepairs(now);
  }

  private List<RepairTask> planRepairs(long now) {
    List<RepairTask> tasks = new ArrayList<>();
    for (Iterator<String> it = needsRepair.iterator(); it.hasNext() && tasks.size() < MAX_REPAIRS_PER_TICK; ) {
      StoredObject o = objects.get(it.next());
      if (o == null || o.state != StoredObject.State.COMPLETE) {
        it.remove();
        continue;
      }
      if (o.repairInFlight || o.nextRepairMillis > now) {
        continue;
      }
      List<Replica> healthy = new ArrayList<>();
      List<Replica> draining = new ArrayList<>();
      for (Replica r : o.replicas) {
        (nodes.get(r.nodeId()).state() == NodeState.ALIVE ? healthy : draining).add(r);
      }
      if (healthy.size() >= o.wantedReplicas) {
        // enough copies on ALIVE nodes: retire the ones on draining nodes. Safe under a read lease: a draining
        // node gets no new placements, so the freed range keeps its bytes until the node restarts.
        for (Replica r : draining) {
          o.replicas.remove(r);
          free(r);
        }
        it.remove();
        continue;
      }
      Set<String> holders = new HashSet<>();
      o.replicas.forEach(r -> holders.add(r.nodeId()));
      List<StorageNodeRecord> target = placement.choose(nodes.values(), o.size, 1, holders);
      if (target == null) {
        if (draining.isEmpty()) {
          it.remove(); // no node can take another copy; the object stays readable with fewer replicas
        } else {
          o.nextRepairMillis = now + REPAIR_RETRY_MILLIS;
        }
        continue;
      }
      StorageNodeRecord targetNode = target.get(0);
      Replica t = new Replica(targetNode.id(), targetNode.allocate(o.size));
      Replica source = healthy.isEmpty() ? draining.get(0) : healthy.get(0);
      o.repairInFlight = true;
      tasks.add(new RepairTask(o.key, o.generation, o.size, o.checksum, source, nodes.get(source.nodeId()).endpoint(),
          t, targetNode.incarnation(), grant(targetNode, o.key, t, now + config.pendingTimeout().toMillis())));
    }
    return tasks;
  }


  /** Records the outcome of a replica copy started by {@link #tick()}. */
  public synchronized void repairDone(RepairTask task, boolean copied) {
    long now = clock.getAsLong();
    StoredObject o = objects.get(task.key());
    boolean current = o != null && o.generation == task.generation();
    if (current) {
      o.repairInFlight = false;
    }
    StorageNodeRecord target = nodes.get(task.target().nodeId());
    boolean targetAlive = target != null && target.state() != NodeState.DEAD
        && target.incarnation() == task.targetIncarnation();
    if (copied && current && targetAlive) {
      o.replicas.add(task.target());
      counters.repairs.inc();
      needsRepair.add(o.key);
      return;
    }
    if (targetAlive) {
      // the copy may still land late: keep the range until the grant that allows it has expired
      quarantine.add(new Quarantined(task.target(), task.targetIncarnation(), task.targetGrant().expiresAtMillis()));
    }
    if (current) {
      counters.repairFailures.inc();
      o.nextRepairMillis = now + REPAIR_RETRY_MILLIS;
      needsRepair.add(o.key);
    }
  }

  /**
   * Evicts COMPLETE, unpinned, unleased objects, least recently used first, until the configured ratio of used
   * bytes (and at least {@code needBytes}) is freed. Returns the bytes freed.
   */
  long evict(long now, long needBytes) {
    long target = Math.max(needBytes, (long) (usedBytes() * config.evictRatio()));
    List<StoredObject> candidates = new ArrayList<>();
    for (StoredObject o : objects.values()) {
      if (o.evictable(now)) {
        candidates.add(o);
      }
    }
    candidates.sort(Comparator.comparingLong(o -> o.lastAccessMillis));
    long freed = 0;
    int evicted = 0;
    for (StoredObject o : candidates) {
      if (freed >= target && evicted > 0) {
        break;
      }
      freed += o.allocatedBytes();
      delete(o);
      evicted++;
    }
    counters.evictions.add(evicted);
    // when everything is leased, pinned or pending, do not rescan the table on every put
    lastFruitlessEvictionMillis = evicted == 0 ? now : Long.MIN_VALUE / 2;
    // under steady pressure this runs every few puts: the evictions counter in /metrics is the record
    if (evicted > 0) {
      LOG.debug("event=eviction_round evicted={} freed_bytes={} candidates={}", evicted, freed, candidates.size());
    }
    return freed;
  }

  /** Forgets replicas on {@code nodeId} except {@code keep}; objects left with none are lost. */
  private void dropReplicasOf(String nodeId, Set<Replica> keep, long now) {
    List<StoredObject> lost = new ArrayList<>();
    for (StoredObject o : objects.values()) {
      if (o.replicas.removeIf(r -> r.nodeId().equals(nodeId) && !keep.contains(r))) {
        if (o.replicas.isEmpty()) {
          lost.add(o);
        } else {
          needsRepair.add(o.key);
        }
      }
    }
    for (StoredObject o : lost) {
      objects.remove(o.key);
      pendingKeys.remove(o.key);
      if (o.state == StoredObject.State.COMPLETE) {
        counters.objectsLost.inc();
      }
    }
    if (!lost.isEmpty()) {
      LOG.warn("event=objects_lost node={} count={}", nodeId, lost.size());
    }
  }

  private void forgetReplica(StoredObject o, Replica r) {
    o.replicas.remove(r);
    if (o.replicas.isEmpty()) {
      objects.remove(o.key);
      pendingKeys.remove(o.key);
      counters.objectsLost.inc();
    } else {
      needsRepair.add(o.key);
    }
  }

  private void delete(StoredObject o) {
    objects.remove(o.key);
    pendingKeys.remove(o.key);
    needsRepair.remove(o.key);
    for (Replica r : o.replicas) {
      if (o.state == StoredObject.State.PENDING) {
        // a writer of a revoked or abandoned put may still hold a valid grant: reuse the range only after it expired
        StorageNodeRecord node = nodes.get(r.nodeId());
        if (node != null) {
          quarantine.add(new Quarantined(r, node.incarnation(), o.pendingDeadlineMillis));
        }
      } else {
        free(r);
      }
    }
  }

  private void releaseQuarantined(long now) {
    for (Iterator<Quarantined> it = quarantine.iterator(); it.hasNext(); ) {
      Quarantined q = it.next();
      if (q.releaseAtMillis() < now) {
        it.remove();
        StorageNodeRecord node = nodes.get(q.replica().nodeId());
        if (node != null && node.incarnation() == q.incarnation()) {
          free(q.replica());
        }
      }
    }
  }

  private void free(Replica r) {
    StorageNodeRecord node = nodes.get(r.nodeId());
    if (node == null || node.state() == NodeState.DEAD) {
      return;
    }
    for (Slice s : r.slices()) {
      StorageSegment seg = node.segment(s.segmentId());
      if (seg != null && seg.allocator().isAllocated(s.offset())) {
        seg.allocator().free(s.offset());
        node.released(new Location(s.segmentId(), s.offset()));
      }
    }
  }

  private static boolean onNode(StoredObject o, String nodeId) {
    for (Replica r : o.replicas) {
      if (r.nodeId().equals(nodeId)) {
        return true;
      }
    }
    return false;
  }

  // ---- views for status and metrics ----

  private long capacityBytes() {
    return sumOverLiveNodes(StorageNodeRecord::capacityBytes);
  }

  private long usedBytes() {
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

  private double usageRatio() {
    long c = capacityBytes();
    return c == 0 ? 0 : (double) usedBytes() / c;
  }

  /** A consistent copy of what /status and /metrics show. */
  public synchronized PoolSnapshot snapshot() {
    long now = clock.getAsLong();
    List<PoolSnapshot.Node> nodeViews = new ArrayList<>();
    for (StorageNodeRecord n : nodes.values()) {
      boolean dead = n.state() == NodeState.DEAD;
      nodeViews.add(new PoolSnapshot.Node(n.id(), n.endpoint(), n.state().name(), dead ? 0 : n.capacityBytes(),
          dead ? 0 : n.usedBytes(), n.version().release(), n.version().protocol(), now - n.lastHeartbeatMillis()));
    }
    int leases = 0;
    int pending = 0;
    int pinned = 0;
    for (StoredObject o : objects.values()) {
      leases += o.leased(now) ? 1 : 0;
      pending += o.state == StoredObject.State.PENDING ? 1 : 0;
      pinned += o.pinned ? 1 : 0;
    }
    return new PoolSnapshot(nodeViews, capacityBytes(), usedBytes(), objects.size(), pending, leases, pinned,
        needsRepair.size());
  }
}
