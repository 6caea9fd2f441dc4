package io.kvpool.storage;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.DiskDrop;
import io.kvpool.protocol.DiskFigures;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.HandshakeReply;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.RegisterInventory;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.ServerState;
import io.kvpool.protocol.Tombstone;
import io.kvpool.protocol.WriteReply;
import io.kvpool.security.NodeKey;
import io.kvpool.security.PoolSecrets;
import io.kvpool.storage.disk.DiskTier;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's link to the pool's leader: finds it among the configured master endpoints (a standby
 * answers NOT_LEADER; any endpoint may be a Service name), registers with the inventory in bounded
 * chunks, heartbeats, applies the releases the master sends, and registers again whenever the
 * master no longer knows it or a new view began. It follows the highest view it has seen and
 * refuses an older master (fencing); each registration brings a new node key, so grants and tokens
 * of a deposed leader stop working here.
 */
final class MasterLink implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MasterLink.class);
  private static final Duration RPC_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How long a master may take to answer a new connection's handshake. A master process that is
   * starting has its port bound before it serves: waiting the full RPC timeout there made nodes
   * miss a new leader's recovery (one node TTL), so that leader found none of them and answered
   * NOT_FOUND for stored objects until they came. A serving master answers in milliseconds; the
   * next master endpoint is tried instead.
   */
  static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(3);

  private static final long MAX_BACKOFF_MILLIS = 500;

  /**
   * A node commits at the master only while the master's last answer is at most this many heartbeat
   * intervals old (and never less than 3 s): a node that could not reach its master for longer may
   * have been declared dead there, where its commits would not count.
   */
  private static final int COMMIT_FRESHNESS_INTERVALS = 3;

  private static final long MIN_COMMIT_FRESHNESS_MILLIS = 3_000;

  private final PoolSecrets secrets;
  private final String transport;
  private final List<String> devices;
  private final List<HostPort> masters;
  private final String configuredPoolId;
  private final String nodeId;
  private final String endpoint;
  private final List<SegmentInfo> segments;
  private final ObjectInventory inventory;
  private final Duration interval;
  private final CountDownLatch registered = new CountDownLatch(1);
  private final CountDownLatch settled =
      new CountDownLatch(1); // registered, or refused for its configured pool
  private final Thread thread;
  private volatile NodeKey nodeKey;
  private volatile boolean serving;
  private volatile String poolId;
  private volatile HandshakeException poolRefusal;
  private volatile long highestView;
  private volatile long registeredView;
  private volatile long clockOffsetMillis; // master time - local time
  private volatile boolean closed;
  private volatile long
      lastAnswerMillis; // local time of the master's last heartbeat or registration answer
  private int next; // index of the master endpoint to try next

  /**
   * Guards every frame sent on {@link #connection} and the registration's fields: the link thread's
   * requests and the COMMITs that connection threads send interleave on the one connection, and a
   * COMMIT goes out only under the registration that admitted its writes.
   */
  private final Object sendLock = new Object();

  private byte[] registrationId;
  private RpcConnection connection;

  /** The disk tier's side of the node, or null without one. */
  private final DiskSpill disk;

  /** Writes into extents (protocol 2.4): fenced while the node registers. */
  private final ExtentWrites extents;

  /** A registration: its node key and id, read together. */
  record Registration(NodeKey key, byte[] id) {}

  MasterLink(
      List<HostPort> masters,
      String poolId,
      String nodeId,
      String endpoint,
      List<SegmentInfo> segments,
      ObjectInventory inventory,
      Duration interval,
      PoolSecrets secrets,
      String transport,
      List<String> devices,
      DiskSpill disk) {
    this.disk = disk;
    this.secrets = secrets;
    this.transport = transport;
    this.devices = List.copyOf(devices);
    this.masters = List.copyOf(masters);
    this.configuredPoolId = poolId;
    this.poolId = poolId;
    this.nodeId = nodeId;
    this.endpoint = endpoint;
    this.segments = segments;
    this.inventory = inventory;
    this.interval = interval;
    this.extents = new ExtentWrites(nodeId, this::masterNow);
    this.thread = new Thread(this::run, "storage-master-link");
    thread.setDaemon(true);
  }

  void start() {
    extents.start();
    thread.start();
  }

  /**
   * Blocks until the first registration succeeded (true), the master refused the node's configured
   * pool id (false, see {@link #poolRefusal}; the link then stops) or the timeout passed (false).
   */
  boolean awaitRegistered(Duration timeout) throws InterruptedException {
    settled.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    return registered.getCount() == 0;
  }

  HandshakeException poolRefusal() {
    return poolRefusal;
  }

  /**
   * Registered with the current leader and its inventory delivered: the node is placed on and read
   * from.
   */
  boolean isRegistered() {
    return serving;
  }

  /** The key of the current registration; null before the first one. */
  NodeKey nodeKey() {
    return nodeKey;
  }

  /** The current registration's key and id together; null before the first one. */
  Registration registration() {
    synchronized (sendLock) {
      return nodeKey == null ? null : new Registration(nodeKey, registrationId);
    }
  }

  /** The master this node's link is connected to now (the leader it follows), or null. */
  HostPort masterEndpoint() {
    synchronized (sendLock) {
      return connection == null ? null : connection.endpoint();
    }
  }

  ExtentWrites extents() {
    return extents;
  }

  /** Now, in the master's clock (expiries of grants and tokens are master time). */
  long masterNow() {
    return System.currentTimeMillis() + clockOffsetMillis;
  }

  String poolId() {
    return poolId;
  }

  long view() {
    return registeredView;
  }

  /** How this node connects to masters and to the nodes it copies replicas to. */
  ConnectionSecurity outbound() {
    return secrets.outbound();
  }

  /** The newest master view this node has accepted: older masters are refused. */
  long highestView() {
    return highestView;
  }

  private void run() {
    boolean needRegister = true;
    long backoff = 100;
    while (!closed) {
      try {
        if (connection == null || !connection.isUsable()) {
          connect();
          needRegister = true;
        }
        if (needRegister) {
          register();
          needRegister = false;
        }
        HeartbeatReply reply = heartbeat();
        needRegister = !reply.known() || reply.view() != registeredView;
        if (needRegister) {
          serving = false;
          LOG.info(
              "event=reregistering node={} reason={} view={}",
              nodeId,
              reply.known() ? "new_master_view" : "unknown_to_master",
              reply.view());
        }
        backoff = 100;
        if (!needRegister && !reply.more()) {
          Thread.sleep(interval.toMillis());
        }
        inventory.expireWrites(masterNow());
        inventory.expireTombstones(System.currentTimeMillis());
      } catch (InterruptedException e) {
        return;
      } catch (HandshakeException e) {
        LOG.error(
            "event=master_refused_node master={} node={} reason=\"{}\"",
            current(),
            nodeId,
            e.getMessage());
        if (e.code() == ErrorCode.POOL_MISMATCH
            && !configuredPoolId.isEmpty()
            && registered.getCount() > 0) {
          // a node started for another pool is misconfigured: waiting will not fix it, so stop and
          // let start() fail
          poolRefusal = e;
          settled.countDown();
          return;
        }
        backoff = switchMaster(Math.max(backoff, 1_000));
      } catch (RemoteErrorException e) {
        if (e.code() != ErrorCode.NOT_LEADER) {
          LOG.warn(
              "event=master_refused_request master={} node={} code={} reason=\"{}\"",
              current(),
              nodeId,
              e.code(),
              e.remoteMessage());
        }
        backoff = switchMaster(backoff);
      } catch (IOException | RuntimeException e) {
        if (!closed) {
          LOG.warn(
              "event=master_unreachable master={} node={} error=\"{}\"",
              current(),
              nodeId,
              e.getMessage());
        }
        backoff = switchMaster(backoff);
      }
    }
  }

  private HostPort current() {
    return masters.get(next % masters.size());
  }

  /**
   * Where the current connection really goes (the leader a standby named, else the configured
   * endpoint).
   */
  private HostPort connected() {
    return connection != null ? connection.endpoint() : current();
  }

  /**
   * Drops the connection, moves to the next master endpoint and sleeps a jittered, growing backoff.
   */
  private long switchMaster(long backoff) {
    closeConnection();
    next++;
    try {
      Thread.sleep(backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
    return Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
  }

  private void connect() throws IOException {
    closeConnection();
    RpcConnection opened =
        RpcConnection.open(
            current(),
            new Handshake(VersionInfo.CURRENT, Role.STORAGE, poolId, nodeId),
            0,
            secrets.outbound(),
            HANDSHAKE_TIMEOUT);
    HandshakeReply hello = opened.peerReply();
    if (hello.state() == ServerState.STANDBY && !hello.leaderEndpoint().isEmpty()) {
      // a standby names the leader: go there directly (it may be none of the configured endpoints,
      // e.g. behind a
      // Service name)
      HostPort leader = HostPort.parse(hello.leaderEndpoint());
      opened.close();
      opened =
          RpcConnection.open(
              leader,
              new Handshake(VersionInfo.CURRENT, Role.STORAGE, poolId, nodeId),
              0,
              secrets.outbound(),
              HANDSHAKE_TIMEOUT);
    }
    synchronized (sendLock) {
      connection = opened;
    }
    if (connection.peerReply().view() != 0 && connection.peerReply().view() < highestView) {
      throw new IOException(
          "master "
              + connection.endpoint()
              + " serves view "
              + connection.peerReply().view()
              + ", older than view "
              + highestView
              + " this node already follows: refusing a deposed leader");
    }
    if (configuredPoolId.isEmpty()) {
      poolId = connection.peer().poolId();
    }
  }

  private void register() throws IOException {
    synchronized (sendLock) {
      // no COMMIT from here on: the master takes the inventory below as this node's whole truth, so
      // a replica
      // completed after it was taken must not have been committed on the registration it replaces
      serving = false;
    }
    // no extent write lands from here until the new key is in place, and the commits in flight are
    // answered first, so the inventory below holds exactly the extent values the node keeps
    extents.fence();
    ObjectInventory.Snapshot snapshot = inventory.snapshot();
    int minor = connection.agreedMinor();
    boolean tier = disk != null && minor >= RegisterNode.DISK_MINOR;
    if (tier) {
      List<InventoryObject> all = new ArrayList<>(snapshot.objects());
      all.addAll(disk.inventory()); // disk records, as replicas without slices
      snapshot = new ObjectInventory.Snapshot(all, snapshot.tombstones());
    }
    boolean follows = !snapshot.objects().isEmpty() || !snapshot.tombstones().isEmpty();
    BodyWriter w = new BodyWriter();
    new RegisterNode(
            nodeId,
            endpoint,
            segments,
            highestView,
            follows,
            transport,
            devices,
            tier ? disk.tier().settings().capBytes() : 0)
        .encode(w, minor);
    RegisterReply reply;
    try (RpcConnection.Deadline d = connection.deadline(RPC_TIMEOUT)) {
      reply =
          RegisterReply.decode(
              connection.receive(Opcode.REGISTER_NODE, send(Opcode.REGISTER_NODE, w)).reader());
    }
    if (reply.view() < highestView) {
      throw new IOException(
          "master "
              + current()
              + " serves view "
              + reply.view()
              + ", older than view "
              + highestView
              + " this node already follows: refusing a deposed leader");
    }
    synchronized (sendLock) {
      nodeKey =
          new NodeKey(reply.nodeKey()); // grants and tokens of any earlier master stop working here
      registrationId = reply.registrationId();
    }
    extents.reopen();
    lastAnswerMillis = System.currentTimeMillis();
    highestView = reply.view();
    registeredView = reply.view();
    clockOffsetMillis = reply.masterTimeMillis() - System.currentTimeMillis();
    if (follows) {
      sendInventory(snapshot);
    }
    serving = true;
    LOG.info(
        "event=registered master={} node={} pool={} view={} objects={} tombstones={}",
        connected(),
        nodeId,
        poolId,
        registeredView,
        snapshot.objects().size(),
        snapshot.tombstones().size());
    registered.countDown();
    settled.countDown();
  }

  /**
   * Bytes of objects' encodings one inventory chunk holds at most, far below the body limit: block
   * metadata (protocol 2.5) may make an object's entry some 25 KiB.
   */
  private static final int INVENTORY_CHUNK_BYTES = 16 << 20;

  /**
   * The inventory in chunks of at most {@link ProtocolLimits#MAX_INVENTORY_CHUNK} objects and
   * tombstones, and of at most {@link #INVENTORY_CHUNK_BYTES} of objects.
   */
  private void sendInventory(ObjectInventory.Snapshot snapshot) throws IOException {
    int minor = connection.agreedMinor();
    List<List<InventoryObject>> objectChunks = inventoryChunks(snapshot.objects(), minor);
    List<Tombstone> tombs = snapshot.tombstones();
    int chunk = ProtocolLimits.MAX_INVENTORY_CHUNK;
    int chunks = Math.max(objectChunks.size(), (tombs.size() + chunk - 1) / chunk);
    for (int i = 0; i < chunks; i++) {
      List<InventoryObject> o = i < objectChunks.size() ? objectChunks.get(i) : List.of();
      List<Tombstone> t =
          tombs.subList(Math.min(tombs.size(), i * chunk), Math.min(tombs.size(), (i + 1) * chunk));
      BodyWriter w = new BodyWriter(64 + o.size() * 96);
      new RegisterInventory(registrationId, i == chunks - 1, o, t).encode(w, minor);
      try (RpcConnection.Deadline d = connection.deadline(RPC_TIMEOUT)) {
        connection.receive(Opcode.REGISTER_INVENTORY, send(Opcode.REGISTER_INVENTORY, w));
      }
    }
  }

  /** The objects cut into chunks by count and bytes (at least one chunk, maybe empty). */
  private static List<List<InventoryObject>> inventoryChunks(
      List<InventoryObject> objects, int minor) {
    List<List<InventoryObject>> out = new ArrayList<>();
    int from = 0;
    long bytes = 0;
    for (int i = 0; i < objects.size(); i++) {
      InventoryObject o = objects.get(i);
      long b = 32L + o.key().length() * 3L + o.slices().size() * 24L;
      if (o.metadata() != null && minor >= RegisterInventory.METADATA_MINOR) {
        b += 16L + o.key().length() * 3L + o.metadata().encodedBytes();
      }
      if (i > from
          && (i - from == ProtocolLimits.MAX_INVENTORY_CHUNK
              || bytes + b > INVENTORY_CHUNK_BYTES)) {
        out.add(objects.subList(from, i));
        from = i;
        bytes = 0;
      }
      bytes += b;
    }
    if (from < objects.size() || out.isEmpty()) {
      out.add(objects.subList(from, objects.size()));
    }
    return out;
  }

  /** The disk tier's cap, use and health for the master (protocol 2.4), when the node has one. */
  private Optional<DiskFigures> diskFigures() {
    if (disk == null) {
      return Optional.empty();
    }
    DiskTier.Status s = disk.tier().status();
    return Optional.of(new DiskFigures(s.capBytes(), s.usedBytes(), s.degraded()));
  }

  private HeartbeatReply heartbeat() throws IOException {
    BodyWriter w = new BodyWriter();
    new Heartbeat(nodeId, registrationId, highestView, diskFigures())
        .encode(w, connection.agreedMinor());
    HeartbeatReply reply;
    try (RpcConnection.Deadline d = connection.deadline(RPC_TIMEOUT)) {
      reply =
          HeartbeatReply.decode(
              connection.receive(Opcode.HEARTBEAT, send(Opcode.HEARTBEAT, w)).reader(),
              connection.agreedMinor());
    }
    if (reply.view() < highestView) {
      throw new IOException(
          "master "
              + current()
              + " serves view "
              + reply.view()
              + ", older than view "
              + highestView
              + " this node follows");
    }
    if (reply.known() && reply.view() == registeredView) {
      lastAnswerMillis = System.currentTimeMillis();
    } else {
      serving = false; // no COMMIT to a master that no longer knows this registration
    }
    clockOffsetMillis = reply.masterTimeMillis() - System.currentTimeMillis();
    long now = System.currentTimeMillis();
    for (Release r : reply.releases()) {
      if (disk != null) {
        disk.release(r, now);
      } else {
        inventory.release(r, now);
      }
    }
    if (disk != null && reply.known()) {
      sendDiskDrops();
    }
    return reply;
  }

  private void closeConnection() {
    synchronized (sendLock) {
      if (connection != null) {
        connection.close();
        connection = null;
      }
    }
  }

  /**
   * Sends a request of the link thread's, interleaved safely with COMMITs; its reply is read with
   * receive.
   */
  private long send(Opcode opcode, BodyWriter body) throws IOException {
    synchronized (sendLock) {
      return connection.send(opcode, body);
    }
  }

  /**
   * Whether this node may promise to commit, at the master, replicas whose writes were admitted
   * under the registration keyed {@code admittedUnder}: that registration is current and serving,
   * the master speaks protocol 2.2, and it answered recently. Else the writer commits them with
   * PUT_END.
   */
  boolean mayCommit(NodeKey admittedUnder) {
    long freshness =
        Math.max(MIN_COMMIT_FRESHNESS_MILLIS, COMMIT_FRESHNESS_INTERVALS * interval.toMillis());
    if (System.currentTimeMillis() - lastAnswerMillis > freshness) {
      return false;
    }
    synchronized (sendLock) {
      RpcConnection c = connection;
      return serving
          && admittedUnder != null
          && admittedUnder == nodeKey
          && c != null
          && c.isUsable()
          && c.agreedMinor() >= WriteReply.COMMIT_MINOR;
    }
  }

  /**
   * Sends promised commits of writes admitted under the registration keyed {@code admittedUnder} as
   * one one-way COMMIT. False when it could not: another registration since, whose inventory proves
   * those replicas, or a failed connection, after which the link registers again.
   */
  String nodeId() {
    return nodeId;
  }

  boolean sendCommit(NodeKey admittedUnder, List<NodeCommit.Item> items) {
    BodyWriter w = new BodyWriter(64 + items.size() * (48 + items.get(0).key().length()));
    synchronized (sendLock) {
      RpcConnection c = connection;
      if (admittedUnder != nodeKey || c == null || !c.isUsable()) {
        return false;
      }
      new NodeCommit(nodeId, registrationId, items).encode(w);
      try {
        c.send(Opcode.COMMIT, w);
        return true;
      } catch (IOException e) {
        // the link thread finds the connection broken and registers again, inventory and all
        return false;
      }
    }
  }

  /**
   * Tells the master which disk replicas the tier lost (one-way DISK_DROP, protocol 2.3). Lost with
   * a broken connection they need no resending: the next registration's inventory leaves them out.
   */
  private void sendDiskDrops() {
    List<PutRef> drops;
    while (!(drops = disk.takeDrops(ProtocolLimits.MAX_BATCH)).isEmpty()) {
      BodyWriter w = new BodyWriter(64 + drops.size() * 48);
      synchronized (sendLock) {
        RpcConnection c = connection;
        if (c == null || !c.isUsable() || c.agreedMinor() < RegisterNode.DISK_MINOR) {
          return;
        }
        new DiskDrop(nodeId, registrationId, drops).encode(w);
        try {
          c.send(Opcode.DISK_DROP, w);
        } catch (IOException e) {
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    extents.close();
    thread.interrupt();
    closeConnection();
  }
}
