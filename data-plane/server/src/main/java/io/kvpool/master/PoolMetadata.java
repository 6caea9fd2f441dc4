package io.kvpool.master;

import io.kvpool.admin.AdminJson;
import io.kvpool.admin.ObjectScan;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.DiskDrop;
import io.kvpool.protocol.DiskFigures;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Extent;
import io.kvpool.protocol.ExtentCommit;
import io.kvpool.protocol.ExtentGrantReply;
import io.kvpool.protocol.ExtentGrantRequest;
import io.kvpool.protocol.ExtentReturn;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.Keys;
import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.PutDeadline;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.RegisterInventory;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import io.kvpool.protocol.ServerState;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.StatsReply;
import io.kvpool.protocol.WriteReply;
import io.kvpool.rpc.RateLimitedLog;
import io.kvpool.security.NodeKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.LoggerFactory;

/**
 * The master's metadata behind one lock (this object's monitor): every operation on the put/get
 * path costs O(its batch), never O(objects) — tokens and grants are signed and receipts checked
 * outside the lock; eviction samples; node loss, drains and re-registrations are swept in bounded
 * steps by the tick. The state and its primitives are in {@link PoolState}; nodes in {@link
 * NodeRegistry}; eviction, repairs and sweeps in their own classes.
 */
public final class PoolMetadata {
  private static final int MAX_EXPIRED_PER_TICK = 4096;
  private static final int MAX_WATERMARK_VICTIMS_PER_TICK = 1024;
  private static final int MAX_VICTIMS_PER_PUT = 256;
  private static final int MAX_WATERMARK_VICTIMS_PER_PUT = 64;
  private static final int REMOVE_ALL_CHUNK = 10_000;

  /**
   * Eviction rounds a put may start before it is refused for room; the last may move leased values
   * to disk tiers.
   */
  private static final int ROOM_ROUNDS = 3;

  private static final RateLimitedLog NO_ROOM =
      new RateLimitedLog(LoggerFactory.getLogger(PoolMetadata.class), 1_000);

  /**
   * How long a lookup waits for a pending put that storage nodes commit: their COMMITs follow their
   * replies to the writer at once, so after a put returned they are microseconds to a few scheduler
   * delays away; a writer still writing, or gone, holds up one lookup at most this long.
   */
  static final Duration COMMIT_WAIT = Duration.ofSeconds(2);

  /**
   * How long a lookup waits (from its start) for the rest of a put's COMMITs once one arrived: the
   * put is readable, and the others normally follow within milliseconds (each node sends its COMMIT
   * right after its reply); only a node killed between its reply and its COMMIT leaves one missing,
   * and then this delays the put's first lookup, which lists the committed replicas alone.
   */
  static final Duration REST_COMMIT_WAIT = Duration.ofMillis(250);

  private final LongSupplier clock;

  /**
   * Real elapsed time between ticks, to tell this master's own stalls (a SIGSTOP, a long GC pause,
   * a starved CPU) from its nodes' silence; replaceable by tests.
   */
  LongSupplier stallClockNanos = System::nanoTime;

  private long lastTickNanos;
  private final PoolState pool;
  private final NodeRegistry registry;
  private final Eviction eviction;
  private final Repairs repairs;
  private final TierMoves tiers;
  private final ExtentLeases extents = new ExtentLeases();

  /** Lookups waiting in {@link #settle}. */
  private int settling;

  private long commitWaitNanos = COMMIT_WAIT.toNanos();
  private long restCommitWaitNanos = REST_COMMIT_WAIT.toNanos();

  /**
   * The metadata of one leadership under {@code view}; {@code previousNodes} are the storage nodes
   * the previous leader recorded (empty when unknown), which recovery waits for.
   */
  public PoolMetadata(
      MasterConfig config,
      LongSupplier clockMillis,
      ReplicaPlacement placement,
      MasterCounters counters,
      Random random,
      long view,
      Set<String> previousNodes) {
    this.clock = clockMillis;
    this.pool =
        new PoolState(
            config, counters, placement, random, view, clockMillis.getAsLong(), previousNodes);
    this.registry = new NodeRegistry(pool);
    this.eviction = new Eviction(pool);
    this.repairs = new Repairs(pool);
    this.tiers = new TierMoves(pool);
  }

  /**
   * Tells {@code listener} every change of residency from now on (before this leadership serves
   * anything).
   */
  public synchronized void listen(ResidencyListener listener) {
    pool.objects.listen(listener);
  }

  /**
   * The readable objects now, for a full re-announcement: the table copied under the lock (an array
   * copy), then each object looked at in steps of {@link NodeSweep#STEP} with the lock released in
   * between, so puts and gets wait at most one step. A change during the walk is also told to the
   * residency listener, which orders it after this.
   */
  public List<ResidentObject> residents() {
    List<StoredObject> all;
    synchronized (this) {
      all = pool.objects.all();
    }
    List<ResidentObject> out = new ArrayList<>(all.size());
    for (int from = 0; from < all.size(); from += NodeSweep.STEP) {
      synchronized (this) {
        for (StoredObject o : all.subList(from, Math.min(all.size(), from + NodeSweep.STEP))) {
          if (o.slot >= 0 && o.visible()) {
            out.add(o.resident());
          }
        }
      }
    }
    return out;
  }

  public MasterConfig config() {
    return pool.config;
  }

  public long view() {
    return pool.view;
  }

  public ServerState state() {
    return pool.serverState;
  }

  // ---- storage nodes ----

  public synchronized RegisterReply register(
      RegisterNode msg, VersionInfo version, Object connection, BooleanSupplier connectionOpen) {
    return registry.register(msg, version, connection, connectionOpen, clock.getAsLong());
  }

  public synchronized void inventory(RegisterInventory chunk) {
    registry.inventory(chunk, clock.getAsLong());
    wakeSettlers(); // an inventory may prove replicas of pending puts
  }

  public synchronized HeartbeatReply heartbeat(Heartbeat hb) {
    return registry.heartbeat(hb, clock.getAsLong());
  }

  /** New eviction settings, in force from the next put or tick: they need no restart. */
  public synchronized void updateEviction(double highWatermark, double evictRatio) {
    pool.config = pool.config.withEviction(highWatermark, evictRatio);
  }

  /** Drains a node; throws {@link RefusedException} with the reason when it cannot. */
  public synchronized void drain(String nodeId) {
    registry.drain(nodeId);
  }

  // ---- puts ----

  /**
   * Places under the lock; signs the grants (an HMAC per slice) after releasing it. {@code
   * writerMinor}: the protocol minor of the client, whose puts its storage nodes commit from 2.2
   * on.
   */
  public List<PutStartResult> putStart(List<PutStartItem> items, int writerMinor) {
    return putStart(items, java.util.Collections.nCopies(items.size(), null), writerMinor);
  }

  /**
   * PUT_START_META (protocol 2.3): as {@link #putStart(List, int)}, each object keeping its item's
   * block metadata (null: none) for residency events; metadata over a limit refuses its item with
   * LIMIT_EXCEEDED.
   */
  public List<PutStartResult> putStart(
      List<PutStartItem> items, List<BlockMetadata> metadata, int writerMinor) {
    List<Placement> placed = new ArrayList<>(items.size());
    synchronized (this) {
      long now = clock.getAsLong();
      for (int i = 0; i < items.size(); i++) {
        placed.add(
            place(items.get(i), metadata.get(i), now, writerMinor >= WriteReply.COMMIT_MINOR));
      }
      if (!pool.recovering() && pool.usageRatio() > pool.config.highWatermark()) {
        // a bounded share here keeps usage near the watermark under a put storm; the tick does the
        // rest
        eviction.evict(
            now,
            (long) (pool.usedBytes() * pool.config.evictRatio()),
            MAX_WATERMARK_VICTIMS_PER_PUT);
      }
    }
    List<PutStartResult> results = new ArrayList<>(placed.size());
    for (Placement p : placed) {
      results.add(p.sign());
    }
    return results;
  }

  /** One placed put (replicas allocated, grants not yet signed) or a refusal. */
  private record Placement(
      PutStartResult refusal,
      PutStartItem item,
      long generation,
      long expiresAtMillis,
      List<StorageNodeRecord> nodes,
      List<Replica> replicas) {
    static Placement refused(ErrorCode code, String message) {
      return new Placement(PutStartResult.refused(code, message), null, 0, 0, List.of(), List.of());
    }

    PutStartResult sign() {
      if (refusal != null) {
        return refusal;
      }
      List<ReplicaGrant> grants = new ArrayList<>(replicas.size());
      for (int i = 0; i < replicas.size(); i++) {
        StorageNodeRecord node = nodes.get(i);
        List<SliceGrant> slices = new ArrayList<>(replicas.get(i).slices().size());
        for (Slice s : replicas.get(i).slices()) {
          slices.add(
              new SliceGrant(
                  s,
                  node.key()
                      .writeGrant(
                          item.key(),
                          generation,
                          s,
                          item.size(),
                          item.checksum(),
                          item.replicas(),
                          expiresAtMillis)));
        }
        grants.add(new ReplicaGrant(node.id(), node.endpoint(), slices));
      }
      return new PutStartResult(ErrorCode.OK, "", generation, expiresAtMillis, grants);
    }
  }

  private Placement place(
      PutStartItem item, BlockMetadata metadata, long now, boolean writerTakesNodeCommits) {
    String problem = item.limitProblem();
    if (problem == null && metadata != null) {
      problem = metadata.limitProblem();
    }
    if (problem != null) {
      return Placement.refused(ErrorCode.LIMIT_EXCEEDED, problem);
    }
    StoredObject existing = pool.objects.get(item.key());
    if (existing != null
        && !existing.complete()
        && existing.pending().putId == item.putId()
        && existing.size == item.size()
        && existing.checksum == item.checksum()
        && existing.wantedReplicas == item.replicas()) {
      return retried(existing, item);
    }
    if (existing != null) {
      return existing.complete()
          ? Placement.refused(
              ErrorCode.ALREADY_EXISTS, "key already stored; remove it first to replace it")
          : Placement.refused(
              ErrorCode.PUT_IN_PROGRESS,
              "another put of this key (generation "
                  + existing.generation
                  + ") is in progress; retry after it completes or expires");
    }
    int alive = pool.nodesIn(NodeState.ALIVE);
    if (alive < item.replicas() && pool.recovering()) {
      return Placement.refused(
          ErrorCode.RECOVERING,
          "this new leader has "
              + alive
              + " storage node(s) registered"
              + " so far; retry while the others re-register");
    }
    int returning = pool.nodesIn(NodeState.REGISTERING);
    if (alive < item.replicas() && alive + returning >= item.replicas()) {
      // registering nodes (new ones, or nodes that lost their link to a frozen leader, say) are
      // not placed on until their inventories are in, which takes moments: not missing
      return Placement.refused(
          ErrorCode.RECOVERING,
          alive
              + " storage node(s) are ALIVE and "
              + returning
              + " registering; retry once their inventories are in");
    }
    if (alive < item.replicas()) {
      return Placement.refused(
          ErrorCode.NOT_ENOUGH_NODES,
          item.replicas()
              + " replicas requested but only "
              + alive
              + " storage node(s) are ALIVE; lower the replica count or add storage nodes");
    }
    int capable = 0;
    for (StorageNodeRecord n : pool.nodeRecords()) {
      if (n.state() == NodeState.ALIVE && n.couldEverHold(item.size())) {
        capable++;
      }
    }
    if (capable < item.replicas()) {
      return Placement.refused(
          ErrorCode.NO_SPACE,
          "a value of "
              + item.size()
              + " bytes fits on only "
              + capable
              + " of the "
              + alive
              + " ALIVE nodes even when they are empty; "
              + item.replicas()
              + " are needed");
    }
    List<StorageNodeRecord> chosen = choose(item);
    EvictionRound last = null;
    for (int round = 0; chosen == null && round < ROOM_ROUNDS && !pool.recovering(); round++) {
      // until R nodes can hold the value (bytes freed across nodes may fit on none); the last round
      // may move leased values to disk tiers, where they stay readable
      last =
          eviction.evict(
              now,
              Long.MAX_VALUE,
              MAX_VICTIMS_PER_PUT,
              round == ROOM_ROUNDS - 1,
              () -> roomFor(item));
      if (last.freedBytes() > 0) {
        chosen = choose(item);
      }
    }
    if (chosen == null && pool.recovering()) {
      return Placement.refused(
          ErrorCode.RECOVERING,
          "no room until this new leader has recovered its index and"
              + " eviction resumes; retry shortly");
    }
    if (chosen == null && last != null && last.pending() + last.copying() > 0) {
      // memory held by puts still being written or committed, or by copies: room comes once they
      // end (or expire), so the writer retries instead of being told the pool is full
      logNoRoom(item, last);
      return Placement.refused(
          ErrorCode.BUSY,
          "no room for "
              + item.size()
              + " bytes x "
              + item.replicas()
              + " replicas right now: memory is held by puts still in flight or by copies ("
              + last.pending()
              + " pending, "
              + last.copying()
              + " copying of "
              + last.inMemory()
              + " sampled in memory); retry shortly");
    }
    if (chosen == null) {
      logNoRoom(item, last);
      return Placement.refused(
          ErrorCode.NO_SPACE,
          "no room for "
              + item.size()
              + " bytes x "
              + item.replicas()
              + " replicas on distinct nodes, even after eviction; add storage, lower the replica count, or store"
              + " smaller values");
    }
    StoredObject o =
        new StoredObject(
            item.key(), pool.generations.next(now), item.size(), item.checksum(), item.replicas());
    o.pending().deadlineMillis = now + pool.config.pendingTimeout().toMillis();
    pool.objects.touched(o, now);
    o.pending().putId = item.putId();
    o.blockMetadata = metadata;
    o.pending().committedByNodes = writerTakesNodeCommits;
    for (StorageNodeRecord node : chosen) {
      pool.addReplica(o, node.allocate(item.size()));
      o.pending().committedByNodes &= node.version().protocolMinor() >= WriteReply.COMMIT_MINOR;
    }
    pool.objects.add(o);
    return new Placement(
        null, item, o.generation, o.pendingDeadlineMillis(), List.copyOf(chosen), o.replicas());
  }

  /** Whether as many ALIVE nodes as {@code item} has replicas can each hold it now. */
  private boolean roomFor(PutStartItem item) {
    int able = 0;
    for (StorageNodeRecord n : pool.nodeRecords()) {
      if (n.state() == NodeState.ALIVE && n.canHold(item.size()) && ++able >= item.replicas()) {
        return true;
      }
    }
    return false;
  }

  /**
   * One line per refusal for room (rate-limited: a client retrying a refused put must not flood the
   * log): the nodes' memory and disk tiers and what the last eviction round found, so that a
   * refusal says whether memory was held by leases, pins, pending puts or copies.
   */
  private void logNoRoom(PutStartItem item, EvictionRound last) {
    StringBuilder nodes = new StringBuilder();
    for (StorageNodeRecord n : pool.nodeRecords()) {
      DiskFigures disk = n.diskFigures();
      nodes
          .append(nodes.isEmpty() ? "" : ",")
          .append(n.id())
          .append(':')
          .append(n.state())
          .append(":free=")
          .append(n.capacityBytes() - n.usedBytes())
          .append(":largest_free=")
          .append(n.largestFreeBlock())
          .append(
              disk == null ? "" : ":disk_used=" + disk.usedBytes() + "/" + disk.capacityBytes());
    }
    NO_ROOM.info(
        "event=put_refused_no_room key={} size={} replicas={} objects={} nodes={} last_round=[{}]",
        item.key(),
        item.size(),
        item.replicas(),
        pool.objects.size(),
        nodes,
        last == null ? "none" : last);
  }

  /**
   * R distinct ALIVE nodes with room, avoiding the nodes the client just failed to reach and the
   * silent ones when others can serve ({@link #placeAvoiding}).
   */
  private List<StorageNodeRecord> choose(PutStartItem item) {
    long now = clock.getAsLong();
    return placeAvoiding(
        item.avoidNodes(),
        now,
        avoid ->
            pool.placement.choose(pool.nodeRecords(), item.size(), item.replicas(), avoid, now));
  }

  /**
   * The first placement {@code place} finds avoiding: the nodes the client names (it just failed to
   * reach them) and the silent ones ({@link PoolState#silentNodes}), then the named ones alone,
   * then none. Without the silent ones every put placed on a frozen node waits out its client's
   * exchange timeout until the node TTL, and the node, left emptiest by the puts that failed there,
   * wins more placements than its share.
   */
  private <T> T placeAvoiding(List<String> named, long nowMillis, Function<Set<String>, T> place) {
    Set<String> silent = pool.silentNodes(nowMillis);
    Set<String> avoid = null;
    if (!silent.isEmpty()) {
      avoid = new HashSet<>(named);
      avoid.addAll(silent);
    }
    T placed = avoid == null ? null : place.apply(avoid);
    if (placed == null && !named.isEmpty()) {
      placed = place.apply(Set.copyOf(named));
    }
    return placed != null ? placed : place.apply(Set.of());
  }

  /**
   * The pending put a retried PUT_START (same put id) asks for: its grants again, if its nodes
   * still serve.
   */
  private Placement retried(StoredObject o, PutStartItem item) {
    List<StorageNodeRecord> nodes = new ArrayList<>();
    for (Replica r : o.replicas()) {
      StorageNodeRecord n = pool.holder(r);
      if (n == null || !n.state().serves()) {
        return Placement.refused(
            ErrorCode.PUT_IN_PROGRESS,
            "this put's storage node " + r.nodeId() + " is gone;" + " retry after the put expires");
      }
      nodes.add(n);
    }
    return new Placement(null, item, o.generation, o.pendingDeadlineMillis(), nodes, o.replicas());
  }

  /** A PutEnd item whose receipts are checked outside the lock. */
  private record Commit(
      PutEndItem item, StoredObject object, List<Replica> replicas, List<NodeKey> keys) {}

  /**
   * Completes puts with the replicas their receipts prove. Receipts are checked outside the lock
   * (phase 2); the object is completed only if it is still the same pending put (phase 3).
   */
  public List<ErrorCode> putEnd(List<PutEndItem> items) {
    ErrorCode[] out = new ErrorCode[items.size()];
    List<Commit> commits = new ArrayList<>();
    synchronized (this) {
      long now = clock.getAsLong();
      for (int i = 0; i < items.size(); i++) {
        PutEndItem item = items.get(i);
        StoredObject o = Keys.problem(item.key()) == null ? pool.objects.get(item.key()) : null;
        if (Keys.problem(item.key()) != null) {
          out[i] = ErrorCode.LIMIT_EXCEEDED;
        } else if (o == null || o.generation < item.generation()) {
          // a new leader may not have heard of this put yet: its nodes re-register with the
          // replicas they hold
          out[i] = missing();
        } else if (o.generation != item.generation()) {
          out[i] = ErrorCode.NOT_FOUND; // superseded by a later put of the key
        } else if (o.complete()) {
          // a retried PutEnd of a put that completed; of an adopted one only while no earlier
          // leader can have
          // revoked it (its put expires pendingTimeout after its generation was issued), so that no
          // tombstone an
          // earlier leader sent out can later delete an object whose put this leader acknowledged
          out[i] = !o.adopted || now < adoptedAckDeadline(o) ? ErrorCode.OK : ErrorCode.NOT_FOUND;
        } else {
          List<NodeKey> keys = new ArrayList<>();
          for (Replica r : o.replicas()) {
            StorageNodeRecord n = pool.holder(r);
            keys.add(n == null ? null : n.key());
          }
          commits.add(new Commit(item, o, o.replicas(), keys));
        }
      }
    }
    List<List<Replica>> proven = new ArrayList<>(commits.size());
    for (Commit c : commits) {
      proven.add(proven(c));
    }
    synchronized (this) {
      long now = clock.getAsLong();
      int next = 0;
      for (int i = 0; i < items.size(); i++) {
        if (out[i] == null) {
          Commit c = commits.get(next);
          List<Replica> all = new ArrayList<>(proven.get(next++));
          for (Replica r : c.object().committedReplicas()) {
            if (!all.contains(r)) {
              all.add(r); // committed by its node, whose receipt the writer may not have seen
            }
          }
          out[i] = pool.completePut(c.object(), all, now);
        }
      }
      wakeSettlers();
    }
    return List.of(out);
  }

  private static List<Replica> proven(Commit c) {
    List<Replica> out = new ArrayList<>();
    StoredObject o = c.object();
    for (int r = 0; r < c.replicas().size(); r++) {
      Replica replica = c.replicas().get(r);
      NodeKey key = c.keys().get(r);
      if (key == null) {
        continue;
      }
      byte[] expected = key.receipt(o.key, o.generation, o.size, o.checksum);
      for (Receipt receipt : c.item().receipts()) {
        if (receipt.nodeId().equals(replica.nodeId())
            && NodeKey.matches(expected, receipt.receipt())) {
          out.add(replica);
          break;
        }
      }
    }
    return out;
  }

  public synchronized List<ErrorCode> putRevoke(List<PutRef> puts) {
    long now = clock.getAsLong();
    List<ErrorCode> out = new ArrayList<>(puts.size());
    for (PutRef p : puts) {
      StoredObject o = pool.objects.get(p.key());
      if (o == null || o.generation != p.generation()) {
        out.add(ErrorCode.NOT_FOUND);
      } else if (o.complete()) {
        out.add(ErrorCode.INVALID_STATE);
      } else {
        pool.delete(o, now, true, o.pendingDeadlineMillis());
        out.add(ErrorCode.OK);
      }
    }
    wakeSettlers();
    return out;
  }

  // ---- commits by storage nodes (protocol 2.2) ----

  /** A COMMIT item for a pending put, its receipt checked outside the lock with the node's key. */
  private record NodeReceipt(NodeCommit.Item item, StoredObject object, NodeKey key) {}

  /**
   * A COMMIT item for a replica quarantined after its put was deleted, its receipt checked outside
   * the lock.
   */
  private record LateReceipt(
      NodeCommit.Item item,
      Quarantine.Placement placement,
      Quarantine.Expected expected,
      NodeKey key) {
    boolean verifies() {
      return NodeKey.matches(
          key.receipt(item.key(), item.generation(), expected.size(), expected.checksum()),
          item.receipt());
    }
  }

  /**
   * Applies a storage node's COMMIT: each receipt that verifies with the key of the registration
   * the COMMIT names marks that node's replica of the pending put committed, and a put whose every
   * placed replica is committed completes. A receipt for a replica quarantined because its put was
   * deleted while pending (removed, revoked) frees that range at once: the node completed the
   * replica and admits no further write to it. Others (another registration, a put no longer
   * pending) are counted and dropped: there is no reply, and the node's inventory at its next
   * registration proves the same replicas again.
   */
  public void nodeCommit(NodeCommit commit) {
    List<NodeReceipt> pending = new ArrayList<>(commit.items().size());
    List<LateReceipt> late = new ArrayList<>(0);
    synchronized (this) {
      StorageNodeRecord node = pool.nodes.get(commit.nodeId());
      boolean current =
          node != null && node.registeredAs(commit.registrationId()) && node.state().serves();
      for (NodeCommit.Item item : commit.items()) {
        if (!current || Keys.problem(item.key()) != null) {
          continue;
        }
        StoredObject o = pool.objects.get(item.key());
        if (o != null
            && !o.complete()
            && o.generation == item.generation()
            && o.replicaOn(node.id()) != null) {
          pending.add(new NodeReceipt(item, o, node.key()));
        } else {
          Quarantine.Placement p =
              new Quarantine.Placement(node.id(), item.key(), item.generation());
          Quarantine.Expected expected = pool.quarantine.expected(p);
          if (expected != null) {
            late.add(new LateReceipt(item, p, expected, node.key()));
          }
        }
      }
    }
    List<NodeReceipt> verified = new ArrayList<>(pending.size());
    for (NodeReceipt r : pending) {
      StoredObject o = r.object();
      if (NodeKey.matches(
          r.key().receipt(o.key, o.generation, o.size, o.checksum), r.item().receipt())) {
        verified.add(r);
      }
    }
    List<LateReceipt> lateVerified = late.stream().filter(LateReceipt::verifies).toList();
    int applied = 0;
    int freed = 0;
    synchronized (this) {
      long now = clock.getAsLong();
      for (NodeReceipt r : verified) {
        StoredObject o = r.object();
        if (pool.objects.get(o.key) != o || o.complete() || o.replicaOn(commit.nodeId()) == null) {
          continue;
        }
        pool.objects.commit(o, commit.nodeId());
        applied++;
        if (o.allReplicasCommitted()) {
          pool.completePut(o, o.committedReplicas(), now);
        }
      }
      for (LateReceipt r : lateVerified) {
        Replica replica = pool.quarantine.takeCommitted(r.placement());
        StorageNodeRecord n = replica == null ? null : pool.holder(replica);
        if (n != null && n.registeredAs(commit.registrationId())) {
          n.free(replica);
          freed++;
        }
      }
      wakeSettlers();
    }
    pool.counters.nodeCommits.labelValues("applied").inc(applied);
    pool.counters.nodeCommits.labelValues("freed_quarantine").inc(freed);
    pool.counters.nodeCommits.labelValues("ignored").inc(commit.items().size() - applied - freed);
  }

  /** Applies a storage node's DISK_DROP (protocol 2.3): replicas its disk tier no longer holds. */
  public synchronized void diskDrop(DiskDrop drop) {
    StorageNodeRecord node = pool.nodes.get(drop.nodeId());
    if (node == null || !node.registeredAs(drop.registrationId())) {
      return; // another registration: its inventory already left them out
    }
    long now = clock.getAsLong();
    for (PutRef p : drop.objects()) {
      if (Keys.problem(p.key()) == null) {
        tiers.dropped(node, p.key(), p.generation(), now);
      }
    }
  }

  /** Tests: how long {@link #settle} waits for a put none or some of whose COMMITs arrived. */
  synchronized void commitWaits(Duration none, Duration some) {
    commitWaitNanos = none.toNanos();
    restCommitWaitNanos = some.toNanos();
  }

  /**
   * Waits, releasing the lock, while one of {@code keys} names a pending put that its storage nodes
   * commit, some of whose COMMITs did not arrive (the writer may already have returned: they can
   * still be on their way here): up to {@link #COMMIT_WAIT} from the lookup's start while none
   * arrived, {@link #REST_COMMIT_WAIT} once one did. A put still pending after a whole wait is not
   * waited for again. Called holding the lock.
   */
  private void settle(List<String> keys) {
    long started = 0;
    while (true) {
      StoredObject awaited = null;
      for (String key : keys) {
        StoredObject o = Keys.problem(key) == null ? pool.objects.get(key) : null;
        if (o != null && o.awaitsNodeCommits()) {
          awaited = o;
          break;
        }
      }
      if (awaited == null) {
        return;
      }
      long now = System.nanoTime();
      if (started == 0) {
        started = now;
        pool.counters.commitWaits.inc();
      }
      long deadline = started + (awaited.visible() ? restCommitWaitNanos : commitWaitNanos);
      if (now - deadline >= 0) {
        awaited.pending().commitWaitSpent =
            true; // its writer is slow or gone: later lookups answer at once
        continue;
      }
      settling++;
      try {
        long left = deadline - now;
        wait(left / 1_000_000, (int) (left % 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        settling--;
      }
    }
  }

  /**
   * Wakes the lookups waiting in {@link #settle} after a pending put may have completed or gone.
   * Under the lock.
   */
  private void wakeSettlers() {
    if (settling > 0) {
      notifyAll();
    }
  }

  // ---- extents (protocol 2.4) ----

  /**
   * EXTENT_GRANT: a range of {@code request.length()} bytes (rounded up to the allocator's
   * alignment) on one ALIVE node and a run of generations, leased to {@code clientId} for {@link
   * ExtentLeases#TTL_MILLIS}; or why not (the client then puts through PUT_START). Never evicts.
   */
  public ExtentGrantReply extentGrant(ExtentGrantRequest request, String clientId) {
    ExtentLeases.Lease lease;
    StorageNodeRecord node;
    synchronized (this) {
      long now = clock.getAsLong();
      if (request.length() < ExtentGrantRequest.MIN_LENGTH
          || request.length() > ExtentGrantRequest.MAX_LENGTH) {
        return refuseGrant(
            ErrorCode.LIMIT_EXCEEDED,
            "extent length "
                + request.length()
                + " outside "
                + ExtentGrantRequest.MIN_LENGTH
                + ".."
                + ExtentGrantRequest.MAX_LENGTH);
      }
      if (extents.heldBy(clientId) >= ExtentLeases.MAX_PER_CLIENT) {
        return refuseGrant(
            ErrorCode.LIMIT_EXCEEDED,
            "client "
                + clientId
                + " already holds "
                + ExtentLeases.MAX_PER_CLIENT
                + " extents; return one or let one expire");
      }
      int length = (int) SegmentAllocator.blockSize(request.length());
      if (extents.heldBytes() + length > pool.capacityBytes() / 4) {
        return refuseGrant(
            ErrorCode.NO_SPACE,
            "unused parts of extents already hold a quarter of the pool's capacity; put through"
                + " PUT_START");
      }
      // only nodes that take EXTENT_WRITE (protocol 2.4), e.g. during a rolling upgrade
      List<StorageNodeRecord> capable =
          pool.nodeRecords().stream()
              .filter(n -> n.version().protocolMinor() >= ExtentGrantRequest.MINOR)
              .toList();
      List<StorageNodeRecord> chosen =
          placeAvoiding(
              request.avoidNodes(),
              now,
              avoid -> pool.placement.choose(capable, length, 1, avoid, now));
      Slice range = chosen == null ? null : chosen.get(0).allocateExtent(length);
      if (range == null) {
        return refuseGrant(
            ErrorCode.NO_SPACE, "no node has a free block of " + length + " bytes for an extent");
      }
      node = chosen.get(0);
      lease =
          extents.add(
              pool.generations.reserve(now, ExtentLeases.GENERATIONS),
              ExtentLeases.GENERATIONS,
              clientId,
              node,
              range,
              now + ExtentLeases.TTL_MILLIS);
      pool.counters.extents.labelValues("granted").inc();
    }
    Slice r = lease.range;
    return new ExtentGrantReply(
        ErrorCode.OK,
        "",
        node.id(),
        node.endpoint(),
        new Extent(
            lease.first,
            lease.generations,
            r.segmentId(),
            r.offset(),
            r.length(),
            lease.expiresAtMillis,
            node.key()
                .extentToken(
                    lease.first,
                    lease.generations,
                    r.segmentId(),
                    r.offset(),
                    r.length(),
                    lease.expiresAtMillis)));
  }

  /** An EXTENT_GRANT's refusal, counted by its code (the client then puts through PUT_START). */
  private ExtentGrantReply refuseGrant(ErrorCode code, String message) {
    pool.counters
        .extents
        .labelValues(code == ErrorCode.NO_SPACE ? "grant_refused_no_space" : "grant_refused_limit")
        .inc();
    return ExtentGrantReply.refused(code, message);
  }

  /**
   * EXTENT_COMMIT: registers each value a node wrote into an extent as a stored object, by the key
   * rules of PUT_START (ALREADY_EXISTS, PUT_IN_PROGRESS); refuses the whole request with
   * UNKNOWN_NODE when it names a registration that is not the node's current one (the node's next
   * inventory decides those values).
   */
  public List<ErrorCode> extentCommit(ExtentCommit commit) {
    synchronized (this) {
      StorageNodeRecord node = pool.nodes.get(commit.nodeId());
      if (node == null || !node.registeredAs(commit.registrationId()) || !node.state().serves()) {
        throw new RefusedException(
            ErrorCode.UNKNOWN_NODE,
            "node "
                + commit.nodeId()
                + " commits under a registration this leader does not serve; its inventory"
                + " decides those values");
      }
      long now = clock.getAsLong();
      List<ErrorCode> out = new ArrayList<>(commit.items().size());
      for (ExtentCommit.Item item : commit.items()) {
        ErrorCode status = extentPut(node, item, now);
        pool.counters.extents.labelValues(status == ErrorCode.OK ? "put" : "refused").inc();
        out.add(status);
      }
      wakeSettlers();
      return out;
    }
  }

  private ErrorCode extentPut(StorageNodeRecord node, ExtentCommit.Item item, long now) {
    if (Keys.problem(item.key()) != null || item.size() < 0) {
      return ErrorCode.LIMIT_EXCEEDED;
    }
    ExtentLeases.Lease l = extents.get(item.extent());
    if (l == null
        || l.returned
        || !l.nodeId.equals(node.id())
        || l.incarnation != node.incarnation()
        || !l.owns(item.generation())) {
      return ErrorCode.GRANT_REJECTED;
    }
    if (!NodeKey.matches(
        node.key().receipt(item.key(), item.generation(), item.size(), item.checksum()),
        item.receipt())) {
      return ErrorCode.CHECKSUM_MISMATCH;
    }
    StoredObject existing = pool.objects.get(item.key());
    if (existing != null) {
      if (existing.generation == item.generation()) {
        return ErrorCode.OK; // this very put, committed before
      }
      return existing.complete() ? ErrorCode.ALREADY_EXISTS : ErrorCode.PUT_IN_PROGRESS;
    }
    if (pool.tombstones.covers(item.key(), item.generation())) {
      return ErrorCode.GRANT_REJECTED; // a later put of the key was deleted: this one is too old
    }
    Replica r = extents.carve(l, node, item.slice());
    if (r == null) {
      return ErrorCode.OUT_OF_BOUNDS;
    }
    StoredObject o =
        new StoredObject(item.key(), item.generation(), item.size(), item.checksum(), 1);
    o.pending().deadlineMillis = l.expiresAtMillis;
    pool.objects.touched(o, now);
    pool.addReplica(o, r);
    pool.objects.add(o);
    return pool.completePut(o, List.of(r), now);
  }

  /**
   * EXTENT_RETURN: the client's extents take no further commit (OK); NOT_FOUND for one it does not
   * hold. Their unused space waits for their expiry all the same.
   */
  public synchronized List<ErrorCode> extentReturn(ExtentReturn request, String clientId) {
    List<ErrorCode> out = new ArrayList<>(request.extents().size());
    for (long first : request.extents()) {
      ExtentLeases.Lease l = extents.get(first);
      if (l == null || !l.clientId.equals(clientId)) {
        out.add(ErrorCode.NOT_FOUND);
      } else {
        extents.giveBack(l);
        out.add(ErrorCode.OK);
      }
    }
    return out;
  }

  // ---- reads ----

  /** A found object with its readable replicas, tokens signed outside the lock. */
  private record Lookup(
      StoredObject object,
      long expiresAtMillis,
      List<Replica> replicas,
      List<StorageNodeRecord> nodes) {}

  public List<ReplicaListResult> getReplicas(List<String> keys) {
    return getReplicas(keys, VersionInfo.PROTOCOL_MINOR);
  }

  /**
   * {@code readable} without the replicas on silent nodes ({@link PoolState#silentNodes}) when
   * another replica is left: a client that has not met a frozen node yet reads a node that answers,
   * rather than wait out an exchange with it. A silent node's replica is still listed when no other
   * is, until the node TTL drops it.
   */
  private List<Replica> leavingOutSilent(List<Replica> readable, Set<String> silent) {
    if (silent.isEmpty() || readable.size() < 2) {
      return readable;
    }
    List<Replica> heard = new ArrayList<>(readable.size());
    for (Replica r : readable) {
      if (!silent.contains(r.nodeId())) {
        heard.add(r);
      }
    }
    return heard.isEmpty() || heard.size() == readable.size() ? readable : heard;
  }

  /**
   * The replica lists of {@code keys} for a client of protocol minor {@code clientMinor}: disk
   * replicas only to clients that read them (2.3, READ_OBJECT).
   */
  public List<ReplicaListResult> getReplicas(List<String> keys, int clientMinor) {
    boolean disk = clientMinor >= RegisterNode.DISK_MINOR;
    Object[] found = new Object[keys.size()];
    synchronized (this) {
      settle(keys);
      long now = clock.getAsLong();
      long expiresAt = now + pool.config.leaseTtl().toMillis();
      Set<String> silent = pool.silentNodes(now);
      for (int i = 0; i < keys.size(); i++) {
        String key = keys.get(i);
        pool.counters.gets.inc();
        if (Keys.problem(key) != null) {
          found[i] = ReplicaListResult.missing(ErrorCode.LIMIT_EXCEEDED);
          continue;
        }
        StoredObject o = pool.objects.get(key);
        List<Replica> readable = o == null ? List.of() : pool.readableReplicas(o);
        if (!disk) {
          readable = readable.stream().filter(r -> !r.onDisk()).toList();
        }
        readable = leavingOutSilent(readable, silent);
        if (readable.isEmpty() && o != null && pool.awaitsRegistration(o)) {
          found[i] = ReplicaListResult.missing(ErrorCode.RECOVERING); // its nodes re-register
          continue;
        }
        pool.counters.cacheSignals.lookedUp(key, !readable.isEmpty(), now);
        if (readable.isEmpty()) {
          pool.counters.getMisses.inc();
          found[i] = ReplicaListResult.missing(missing());
          continue;
        }
        pool.counters.getHits.inc();
        pool.objects.touched(o, now);
        o.leaseExpiryMillis = Math.max(o.leaseExpiryMillis, expiresAt);
        List<StorageNodeRecord> nodes = new ArrayList<>(readable.size());
        readable.forEach(r -> nodes.add(pool.holder(r)));
        found[i] = new Lookup(o, expiresAt, readable, nodes);
      }
    }
    List<ReplicaListResult> out = new ArrayList<>(keys.size());
    for (Object f : found) {
      if (f instanceof Lookup l) {
        StoredObject o = l.object();
        List<ReplicaLocation> locations = new ArrayList<>(l.replicas().size());
        for (int r = 0; r < l.replicas().size(); r++) {
          StorageNodeRecord n = l.nodes().get(r);
          locations.add(
              new ReplicaLocation(
                  n.id(),
                  n.endpoint(),
                  n.key().readToken(o.key, o.generation, l.expiresAtMillis()),
                  l.replicas().get(r).slices()));
        }
        out.add(
            new ReplicaListResult(
                ErrorCode.OK, o.size, o.checksum, o.generation, l.expiresAtMillis(), locations));
      } else {
        out.add((ReplicaListResult) f);
      }
    }
    return out;
  }

  /**
   * Until when a PUT_END of an object adopted from an inventory may be acknowledged: its put's
   * expiry, less a margin for the masters' clocks (they must agree within the election lease, as
   * Kubernetes leader election assumes).
   */
  private long adoptedAckDeadline(StoredObject o) {
    return PutDeadline.ackCutoffMillis(
        o.generation,
        PutDeadline.issuedAtMillis(o.generation) + pool.config.pendingTimeout().toMillis());
  }

  /**
   * What a miss is called: final once serving, retryable while a new leader still rebuilds its
   * index.
   */
  private ErrorCode missing() {
    return pool.recovering() ? ErrorCode.RECOVERING : ErrorCode.NOT_FOUND;
  }

  public synchronized List<ErrorCode> exists(List<String> keys) {
    settle(keys);
    List<ErrorCode> out = new ArrayList<>(keys.size());
    for (String key : keys) {
      StoredObject o = Keys.problem(key) == null ? pool.objects.get(key) : null;
      if (Keys.problem(key) != null) {
        out.add(ErrorCode.LIMIT_EXCEEDED);
      } else {
        out.add(
            o != null && !pool.readableReplicas(o).isEmpty()
                ? ErrorCode.OK
                : o != null && pool.awaitsRegistration(o) ? ErrorCode.RECOVERING : missing());
      }
    }
    return out;
  }

  /**
   * What a REMOVE answers, and the releases (by storage node endpoint) its leader delivers to the
   * removed objects' holders on serving nodes before answering (RELEASE). Every holder also gets
   * its release in its next heartbeat reply, as before.
   */
  public record Removal(List<ErrorCode> statuses, Map<String, List<Release>> releasesByNode) {}

  public synchronized Removal remove(List<String> keys) {
    settle(keys);
    long now = clock.getAsLong();
    List<ErrorCode> out = new ArrayList<>(keys.size());
    Map<String, List<Release>> pushes = new HashMap<>();
    for (String key : keys) {
      StoredObject o = Keys.problem(key) == null ? pool.objects.get(key) : null;
      if (Keys.problem(key) != null) {
        out.add(ErrorCode.LIMIT_EXCEEDED);
      } else if (o == null) {
        out.add(missing());
      } else {
        out.add(removeObject(o, now, pushes));
      }
    }
    return new Removal(out, pushes);
  }

  /**
   * REMOVE of {@code o}, a found object, under the lock: OK, or why it stays (PUT_IN_PROGRESS,
   * OBJECT_LEASED); the releases for its holders on serving nodes are added to {@code pushes}.
   */
  private ErrorCode removeObject(StoredObject o, long now, Map<String, List<Release>> pushes) {
    if (!o.visible()) {
      return ErrorCode.PUT_IN_PROGRESS;
    }
    if (o.leased(now) || o.repairInFlight) {
      return ErrorCode.OBJECT_LEASED;
    }
    for (Replica r : o.replicas()) {
      StorageNodeRecord n = pool.holder(r);
      if (n != null && n.state().serves()) {
        pushes
            .computeIfAbsent(n.endpoint(), e -> new ArrayList<>())
            .add(new Release(o.key, o.generation, true));
      }
    }
    // a visible pending put's writer may still hold grants for its uncommitted ranges:
    // quarantine them till then
    pool.delete(o, now, !o.complete(), o.pendingDeadlineMillis());
    return ErrorCode.OK;
  }

  /**
   * Every object now, an array copy under the lock, to be looked at without it (an object's key and
   * generation never change; one removed meanwhile is skipped by {@link #removeObjects}).
   */
  synchronized List<StoredObject> objects() {
    return pool.objects.all();
  }

  /**
   * REMOVE of exactly these objects (REMOVE_MATCHING), one status each as REMOVE answers: an object
   * no longer in the table (removed, evicted or replaced by a later put since it was listed) is
   * NOT_FOUND.
   */
  synchronized Removal removeObjects(List<StoredObject> objects) {
    long now = clock.getAsLong();
    List<ErrorCode> out = new ArrayList<>(objects.size());
    Map<String, List<Release>> pushes = new HashMap<>();
    for (StoredObject o : objects) {
      out.add(
          o.slot >= 0 && pool.objects.get(o.key) == o
              ? removeObject(o, now, pushes)
              : ErrorCode.NOT_FOUND);
    }
    return new Removal(out, pushes);
  }

  /**
   * Removes every complete object that is not leased or being copied, in bounded steps; returns how
   * many.
   */
  public long removeAll() {
    long removed = 0;
    int slot = 0;
    while (true) {
      synchronized (this) {
        long now = clock.getAsLong();
        int end = slot + REMOVE_ALL_CHUNK;
        for (; slot < end; ) {
          StoredObject o = pool.objects.slot(slot);
          if (o == null) {
            return removed;
          }
          if (o.visible() && !o.leased(now) && !o.repairInFlight) {
            pool.delete(o, now, !o.complete(), o.pendingDeadlineMillis());
            removed++; // the last object moved into this slot: look at it next
          } else {
            slot++;
          }
        }
      }
    }
  }

  public synchronized ErrorCode pin(String key, boolean pinned) {
    settle(List.of(key));
    StoredObject o = pool.objects.get(key);
    if (o == null || !o.visible()) {
      return missing();
    }
    pool.objects.setPinned(o, pinned);
    return ErrorCode.OK;
  }

  public synchronized StatsReply stats() {
    return new StatsReply(
        pool.capacityBytes(),
        pool.usedBytes(),
        pool.objects.size(),
        pool.nodesIn(NodeState.ALIVE) + pool.nodesIn(NodeState.DRAINING),
        pool.serverState,
        pool.diskTotals());
  }

  // ---- periodic work ----

  /**
   * Bounded periodic work: declares silent nodes dead, revokes abandoned puts, frees expired
   * quarantine, ends recovery, evicts above the watermark, advances the sweep, and returns replica
   * copies to start.
   */
  public synchronized List<RepairTask> tick() {
    long now = clock.getAsLong();
    long tickNanos = stallClockNanos.getAsLong();
    if (lastTickNanos != 0) {
      // heartbeats that came while this master stood still could not be heard: that silence is
      // its own, not the nodes', and must not get them declared dead
      registry.excuseStall((tickNanos - lastTickNanos) / 1_000_000, now);
    }
    lastTickNanos = tickNanos;
    registry.expireSilentNodes(now);
    for (StoredObject o : pool.objects.expiredPending(now, MAX_EXPIRED_PER_TICK)) {
      List<Replica> committed = o.committedReplicas();
      if (committed.isEmpty()) {
        pool.delete(o, now, true, o.pendingDeadlineMillis());
        pool.counters.pendingExpired.inc();
      } else {
        pool.completePut(
            o, committed,
            now); // some nodes committed it, the rest never wrote: keep what they hold
      }
    }
    pool.freeQuarantined(now);
    extents.closeExpired(now, pool.nodes::get);
    pool.tombstones.expire(now);
    pool.maybeEndRecovery(now);
    if (!pool.recovering() && pool.usageRatio() > pool.config.highWatermark()) {
      eviction.evict(
          now,
          (long) (pool.usedBytes() * pool.config.evictRatio()),
          MAX_WATERMARK_VICTIMS_PER_TICK);
    } else if (!pool.recovering() && repairs.roomWanted() > 0 && pool.evictionSpillsToDisk()) {
      // copies wait for memory no node has below the watermark: move that much cold data to disk
      eviction.evict(now, repairs.roomWanted(), MAX_WATERMARK_VICTIMS_PER_TICK);
    }
    pool.sweep.step(now);
    wakeSettlers();
    return repairs.plan(now);
  }

  /**
   * Records the outcome of a copy started by {@link #tick()}: the target's receipt, or null when it
   * failed.
   */
  public synchronized void repairDone(RepairTask task, byte[] receipt) {
    repairs.done(task, receipt, clock.getAsLong());
  }

  // ---- views for status and metrics: O(nodes), never O(objects) ----

  /**
   * The storage nodes this leader serves (and, while recovering, awaits): what it records for the
   * next leader.
   */
  public synchronized Set<String> servedNodes() {
    return pool.servedNodes();
  }

  public synchronized PoolSnapshot snapshot() {
    long now = clock.getAsLong();
    Set<String> silent = pool.silentNodes(now);
    List<PoolSnapshot.Node> nodeViews = new ArrayList<>();
    for (StorageNodeRecord n : pool.nodeRecords()) {
      boolean dead = n.state() == NodeState.DEAD;
      nodeViews.add(
          new PoolSnapshot.Node(
              n.id(),
              n.endpoint(),
              n.state(),
              dead ? 0 : n.capacityBytes(),
              dead ? 0 : n.usedBytes(),
              dead ? 0 : n.replicaCount(),
              n.version().release(),
              n.version().protocol(),
              now - n.lastHeartbeatMillis(),
              silent.contains(n.id()),
              n.transport(),
              n.devices(),
              dead ? null : n.diskFigures()));
    }
    return new PoolSnapshot(
        pool.view,
        pool.serverState,
        nodeViews,
        pool.capacityBytes(),
        pool.usedBytes(),
        pool.objects.size(),
        pool.objects.onDiskCount(),
        pool.objects.pendingCount(),
        pool.objects.pinnedCount(),
        pool.objects.underReplicatedCount(),
        pool.tombstones.size(),
        MasterCounters.value(pool.counters.objectsRecovered),
        pool.recovering() ? List.copyOf(pool.awaitedNodes()) : List.of());
  }

  /**
   * Counts the object table by walking it (O(objects), in steps of {@link NodeSweep#STEP} with the
   * lock released in between, so puts and gets go on): what the gauges of {@link #snapshot()} must
   * agree with on a quiet pool. Objects that change while the walk is under way may be counted by
   * their old or new state.
   */
  public ObjectScan scan() {
    long objects = 0;
    long pending = 0;
    long readable = 0;
    long underReplicated = 0;
    long replicas = 0;
    int slot = 0;
    while (true) {
      synchronized (this) {
        int end = slot + NodeSweep.STEP;
        for (; slot < end; slot++) {
          StoredObject o = pool.objects.slot(slot);
          if (o == null) {
            return new ObjectScan(
                AdminJson.API_VERSION,
                pool.view,
                pool.serverState.name(),
                objects,
                pending,
                readable,
                underReplicated,
                replicas);
          }
          objects++;
          if (!o.complete()) {
            pending++;
            continue;
          }
          int serving = pool.readableReplicas(o).size();
          readable += serving > 0 ? 1 : 0;
          underReplicated += serving < o.wantedReplicas ? 1 : 0;
          replicas += serving;
        }
      }
    }
  }

  /** Every object's replica count, for tests only: O(n). */
  synchronized java.util.Map<String, Integer> replicaCountsForTest() {
    java.util.Map<String, Integer> out = new java.util.HashMap<>();
    for (StoredObject o : pool.objects.all()) {
      out.put(o.key, pool.readableReplicas(o).size());
    }
    return out;
  }
}
