package io.kvpool.master;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.RegisterInventory;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.Tombstone;
import io.kvpool.security.NodeKey;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A PoolMetadata with a hand-driven clock, and simulated storage nodes that keep what a real node
 * keeps: the replicas they completed (with receipts signed by their current key) and the tombstones
 * of released objects. A fresh master ({@link #restartMaster}) sees the same nodes re-register with
 * those inventories.
 */
final class PoolFixture {
  /** The protocol minor of a writer that ends its puts with PUT_END (before 2.2). */
  static final int PUT_END_WRITER = 1;

  /** The protocol minor of a writer whose storage nodes commit its puts (COMMIT, from 2.2). */
  static final int NODE_COMMIT_WRITER = 2;

  final AtomicLong now = new AtomicLong(1_000_000);
  final MasterCounters counters = new MasterCounters(new PrometheusRegistry());
  final MasterConfig config;
  PoolMetadata pool;
  final Map<String, SimNode> nodes = new LinkedHashMap<>();
  private long view = 1;

  /** The nodes the previous leader recorded on the Lease, for the next {@link #newMetadata()}. */
  private Set<String> previousNodes = Set.of();

  /** What one storage node holds, as the real node's inventory does. */
  static final class SimNode {
    final String id;
    final long bytes;

    /**
     * The size of its disk tier (0: none): releases "to disk" keep the replica there, without
     * slices.
     */
    long diskBytes;

    final Object connection = new Object();
    boolean connectionOpen = true;
    NodeKey key;
    byte[] registrationId;
    final Map<String, InventoryObject> objects =
        new LinkedHashMap<>(); // key -> replica (one generation per key)
    final Map<String, Long> tombstones = new HashMap<>();

    SimNode(String id, long bytes) {
      this.id = id;
      this.bytes = bytes;
    }

    void apply(Release r) {
      InventoryObject held = objects.get(r.key());
      if (held != null && held.generation() == r.generation() && r.toDisk()) {
        objects.put(
            r.key(),
            new InventoryObject(
                held.key(),
                held.generation(),
                held.wantedReplicas(),
                held.size(),
                held.checksum(),
                List.of()));
        return;
      }
      if (held != null && held.generation() == r.generation()) {
        objects.remove(r.key());
      }
      if (r.deleted()) {
        tombstones.merge(r.key(), r.generation(), Math::max);
      }
    }
  }

  PoolFixture(double highWatermark, double evictRatio) {
    this(MasterConfig.defaults("p").withEviction(highWatermark, evictRatio));
  }

  PoolFixture(MasterConfig config) {
    this.config = config;
    this.pool = newMetadata();
  }

  private PoolMetadata newMetadata() {
    return new PoolMetadata(
        config,
        now::get,
        new ReplicaPlacement(new Random(7), config.placementRamp()),
        counters,
        new Random(11),
        view++,
        previousNodes);
  }

  /**
   * Registers a new, empty node and lets the master finish recovery (as if the pool had been
   * running).
   */
  PoolFixture node(String id, long bytes) {
    SimNode n = new SimNode(id, bytes);
    nodes.put(id, n);
    register(n);
    return this;
  }

  /** Registers a new, empty node with a disk tier of {@code diskBytes}. */
  PoolFixture diskNode(String id, long bytes, long diskBytes) {
    SimNode n = new SimNode(id, bytes);
    n.diskBytes = diskBytes;
    nodes.put(id, n);
    register(n);
    return this;
  }

  /** Ends the master's recovery window (no registration for the quiet period). */
  PoolFixture settle() {
    advance(config.recoveryQuietPeriod().plusMillis(1));
    pool.tick();
    return this;
  }

  RegisterReply register(SimNode n) {
    return register(n, 2);
  }

  /** Registers the node with its inventory in chunks of {@code chunk} objects. */
  RegisterReply register(SimNode n, int chunk) {
    List<InventoryObject> objects = new ArrayList<>(n.objects.values());
    List<Tombstone> tombs = new ArrayList<>();
    n.tombstones.forEach((k, g) -> tombs.add(new Tombstone(k, g)));
    boolean follows = !objects.isEmpty() || !tombs.isEmpty();
    RegisterReply reply =
        pool.register(
            new RegisterNode(
                n.id,
                n.id + ":1",
                List.of(new SegmentInfo(0, n.bytes)),
                0,
                follows,
                "tcp",
                List.of(),
                n.diskBytes),
            VersionInfo.CURRENT,
            n.connection,
            () -> n.connectionOpen);
    n.key = new NodeKey(reply.nodeKey());
    n.registrationId = reply.registrationId();
    if (follows) {
      int chunks =
          Math.max(
              1,
              Math.max((objects.size() + chunk - 1) / chunk, (tombs.size() + chunk - 1) / chunk));
      for (int i = 0; i < chunks; i++) {
        pool.inventory(
            new RegisterInventory(
                n.registrationId,
                i == chunks - 1,
                objects.subList(
                    Math.min(objects.size(), i * chunk), Math.min(objects.size(), (i + 1) * chunk)),
                tombs.subList(
                    Math.min(tombs.size(), i * chunk), Math.min(tombs.size(), (i + 1) * chunk))));
      }
    }
    return reply;
  }

  /**
   * The first half of a registration with an inventory: the node registers again (a new
   * registration replacing its current one) and has not delivered its inventory yet.
   */
  void beginRegistration(SimNode n) {
    RegisterReply reply =
        pool.register(
            new RegisterNode(
                n.id,
                n.id + ":1",
                List.of(new SegmentInfo(0, n.bytes)),
                0,
                true,
                "tcp",
                List.of(),
                n.diskBytes),
            VersionInfo.CURRENT,
            n.connection,
            () -> n.connectionOpen);
    n.key = new NodeKey(reply.nodeKey());
    n.registrationId = reply.registrationId();
  }

  /** The second half: the node's whole inventory, in one last chunk. */
  void finishRegistration(SimNode n) {
    List<Tombstone> tombs = new ArrayList<>();
    n.tombstones.forEach((k, g) -> tombs.add(new Tombstone(k, g)));
    pool.inventory(
        new RegisterInventory(n.registrationId, true, new ArrayList<>(n.objects.values()), tombs));
  }

  /** One heartbeat of every node, applying the releases the master sends. */
  void heartbeats() {
    for (SimNode n : nodes.values()) {
      heartbeat(n);
    }
  }

  HeartbeatReply heartbeat(SimNode n) {
    HeartbeatReply reply;
    do {
      reply = pool.heartbeat(new Heartbeat(n.id, n.registrationId, 0));
      reply.releases().forEach(n::apply);
    } while (reply.more());
    return reply;
  }

  /** A new master (new view): every node re-registers with what it holds. */
  void restartMaster() {
    restartMasterHearingFrom(nodes.keySet().toArray(String[]::new));
  }

  /**
   * A new leader (new view) that learns the nodes the previous one served from the Lease, and that
   * only the named nodes re-register with at once; the others come late, if at all.
   */
  void restartMasterHearingFrom(String... ids) {
    previousNodes = pool.servedNodes();
    pool = newMetadata();
    for (String id : ids) {
      register(nodes.get(id));
    }
  }

  /**
   * As {@link #restartMasterHearingFrom}, for a master that finds no record of the nodes (a sole
   * master).
   */
  void restartMasterWithoutRecordHearingFrom(String... ids) {
    previousNodes = Set.of();
    pool = newMetadata();
    for (String id : ids) {
      register(nodes.get(id));
    }
  }

  PutStartResult start(String key, int size, int replicas, String... avoid) {
    return start(PUT_END_WRITER, key, size, replicas, avoid);
  }

  /** A PUT_START from a writer of protocol minor {@code writerMinor}. */
  PutStartResult start(int writerMinor, String key, int size, int replicas, String... avoid) {
    return pool.putStart(
            List.of(
                new PutStartItem(key, size, 0, replicas, new Random().nextLong(), List.of(avoid))),
            writerMinor)
        .get(0);
  }

  /**
   * What a node does for a writer of protocol 2.2: records the replica it verified and sends its
   * receipt in a COMMIT.
   */
  void commit(String key, PutStartResult started, ReplicaGrant grant, int size, int replicas) {
    SimNode n = nodes.get(grant.nodeId());
    Receipt r = write(key, started, grant, size, replicas);
    pool.nodeCommit(
        new NodeCommit(
            n.id,
            n.registrationId,
            List.of(new NodeCommit.Item(key, started.generation(), r.receipt()))));
  }

  /**
   * The replica a node records once it wrote and verified a granted replica; returns its receipt.
   */
  Receipt write(String key, PutStartResult started, ReplicaGrant grant, int size, int replicas) {
    SimNode n = nodes.get(grant.nodeId());
    n.objects.put(
        key,
        new InventoryObject(
            key,
            started.generation(),
            replicas,
            size,
            0,
            grant.slices().stream().map(SliceGrant::slice).toList()));
    return new Receipt(n.id, n.key.receipt(key, started.generation(), size, 0));
  }

  /** A complete put: start (on none of the {@code avoid} nodes), every replica written, end. */
  PutStartResult put(String key, int size, int replicas, String... avoid) {
    PutStartResult r = start(key, size, replicas, avoid);
    if (r.status() != ErrorCode.OK) {
      throw new AssertionError("put " + key + ": " + r.status() + " " + r.message());
    }
    List<Receipt> receipts = new ArrayList<>();
    for (ReplicaGrant g : r.replicas()) {
      receipts.add(write(key, r, g, size, replicas));
    }
    ErrorCode end = pool.putEnd(List.of(new PutEndItem(key, r.generation(), receipts))).get(0);
    if (end != ErrorCode.OK) {
      throw new AssertionError("put end " + key + ": " + end);
    }
    return r;
  }

  boolean exists(String key) {
    return pool.exists(List.of(key)).get(0) == ErrorCode.OK;
  }

  int replicas(String key) {
    return pool.replicaCountsForTest().getOrDefault(key, 0);
  }

  void advance(Duration d) {
    now.addAndGet(d.toMillis());
  }

  /**
   * Ticks until no sweep or repair is left to plan; copies "succeed" by recording them on the
   * target.
   */
  void tickUntilQuiet() {
    for (int i = 0; i < 1_000; i++) {
      List<RepairTask> tasks = pool.tick();
      if (tasks.isEmpty()) {
        return;
      }
      for (RepairTask t : tasks) {
        SimNode target = nodes.get(t.target().nodeId());
        target.objects.put(
            t.key(),
            new InventoryObject(
                t.key(),
                t.generation(),
                t.wantedReplicas(),
                t.size(),
                t.checksum(),
                t.target().slices()));
        pool.repairDone(t, target.key.receipt(t.key(), t.generation(), t.size(), t.checksum()));
      }
    }
    throw new AssertionError("repairs never settled");
  }

  long evictions() {
    return MasterCounters.value(counters.evictions);
  }
}
