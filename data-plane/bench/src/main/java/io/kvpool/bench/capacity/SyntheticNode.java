package io.kvpool.bench.capacity;

import io.kvpool.bench.BenchmarkFailedException;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Heartbeat;
import io.kvpool.protocol.HeartbeatReply;
import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.RegisterInventory;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.RegisterReply;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.security.NodeKey;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A storage node that stores no bytes: it speaks the real storage-node side of the protocol to one
 * master — REGISTER_NODE and its REGISTER_INVENTORY chunks, HEARTBEAT every second, COMMIT of the
 * puts placed on it — for objects that exist only as metadata. It lets one master be filled with
 * tens of millions of objects in seconds, and a new master recover them from the same inventories
 * as from real nodes. Its endpoint is never dialled (the bench neither reads, removes nor repairs).
 */
final class SyntheticNode implements AutoCloseable {
  /** Every object is one 64-byte block: the allocator's unit. */
  static final int VALUE_BYTES = 64;

  /** Declared segment size: room for far more objects than any heap holds, never touched. */
  private static final long SEGMENT_BYTES = 1L << 40;

  /** Long enough for a chunk or a reply behind a full GC of a master's multi-GB heap. */
  private static final Duration EXCHANGE_TIMEOUT = Duration.ofMinutes(2);

  /** A port nothing listens on: the master never needs to dial this node in the bench. */
  private static final String ENDPOINT = "127.0.0.1:9";

  private final String nodeId;
  private final String poolId;
  private final NodeInventory inventory = new NodeInventory();
  private final ScheduledExecutorService heartbeats;
  private final Object link = new Object(); // guards the connection and the registration
  private RpcConnection connection;
  private byte[] registrationId;
  private NodeKey nodeKey;
  private long highestView;
  private long nextOffset;
  private volatile String failure;

  SyntheticNode(String nodeId, String poolId) {
    this.nodeId = nodeId;
    this.poolId = poolId;
    this.heartbeats =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "heartbeat-" + nodeId);
              t.setDaemon(true);
              return t;
            });
    heartbeats.scheduleWithFixedDelay(this::heartbeat, 1, 1, TimeUnit.SECONDS);
  }

  String id() {
    return nodeId;
  }

  /** Adds metadata-only objects to this node's inventory (sent with the next registration). */
  void hold(int[] keyNumbers, int count, long generationBase) {
    synchronized (link) {
      for (int i = 0; i < count; i++) {
        inventory.add(keyNumbers[i], generationBase + keyNumbers[i], nextOffset);
        nextOffset += VALUE_BYTES;
      }
    }
  }

  int objects() {
    synchronized (link) {
      return inventory.size();
    }
  }

  /** A key this node holds, for spot checks. */
  String sampleKey() {
    synchronized (link) {
      return CapacityKeys.key(inventory.keyNumber(inventory.size() / 2));
    }
  }

  /**
   * Connects to {@code master} and registers with the whole inventory, in chunks of the protocol's
   * limit; returns once the master acknowledged the last chunk (the node is then served).
   */
  void register(HostPort master) throws IOException {
    synchronized (link) {
      if (connection != null) {
        connection.close();
        connection = null;
      }
      RpcConnection c =
          RpcConnection.open(
              master,
              new Handshake(VersionInfo.CURRENT, Role.STORAGE, poolId, nodeId),
              0,
              ConnectionSecurity.NONE,
              EXCHANGE_TIMEOUT);
      int total = inventory.size();
      BodyWriter w = new BodyWriter();
      new RegisterNode(
              nodeId, ENDPOINT, List.of(new SegmentInfo(0, SEGMENT_BYTES)), highestView, total > 0)
          .encode(w, c.agreedMinor());
      RegisterReply reply;
      try (RpcConnection.Deadline d = c.deadline(EXCHANGE_TIMEOUT)) {
        reply = RegisterReply.decode(c.call(Opcode.REGISTER_NODE, w).reader());
      }
      registrationId = reply.registrationId();
      nodeKey = new NodeKey(reply.nodeKey());
      highestView = reply.view();
      int chunk = ProtocolLimits.MAX_INVENTORY_CHUNK;
      for (int from = 0; from < total; from += chunk) {
        int to = Math.min(total, from + chunk);
        BodyWriter body = new BodyWriter(64 + (to - from) * 64);
        new RegisterInventory(registrationId, to == total, inventory.chunk(from, to), List.of())
            .encode(body);
        try (RpcConnection.Deadline d = c.deadline(EXCHANGE_TIMEOUT)) {
          c.call(Opcode.REGISTER_INVENTORY, body);
        }
      }
      connection = c;
      failure = null;
    }
  }

  /**
   * Records a put the master placed here and commits it (a one-way COMMIT with its receipt, as a
   * node does once it verified the bytes); a batch of puts shares one COMMIT.
   */
  void commit(List<PlacedPut> puts) throws IOException {
    synchronized (link) {
      List<NodeCommit.Item> items = new ArrayList<>(puts.size());
      for (PlacedPut p : puts) {
        items.add(
            new NodeCommit.Item(
                CapacityKeys.key(p.keyNumber()),
                p.generation(),
                nodeKey.receipt(CapacityKeys.key(p.keyNumber()), p.generation(), VALUE_BYTES, 0)));
        inventory.add(p.keyNumber(), p.generation(), p.offset());
        nextOffset = Math.max(nextOffset, p.offset() + VALUE_BYTES);
      }
      BodyWriter w = new BodyWriter(64 + items.size() * 48);
      new NodeCommit(nodeId, registrationId, items).encode(w);
      connection.send(Opcode.COMMIT, w);
    }
  }

  /** A put the master placed on a node: the key's number, its generation and the block's offset. */
  record PlacedPut(int keyNumber, long generation, long offset) {}

  /**
   * One heartbeat exchange, now: the master serves a connection's requests in order, so once it
   * answers, every COMMIT sent before has been applied.
   */
  void sync() {
    heartbeat();
    String f = failure;
    if (f != null) {
      throw new BenchmarkFailedException("storage node " + nodeId + ": " + f);
    }
  }

  private void heartbeat() {
    synchronized (link) {
      if (connection == null) {
        return;
      }
      BodyWriter w = new BodyWriter();
      new Heartbeat(nodeId, registrationId, highestView).encode(w, connection.agreedMinor());
      try (RpcConnection.Deadline d = connection.deadline(EXCHANGE_TIMEOUT)) {
        HeartbeatReply reply =
            HeartbeatReply.decode(
                connection.call(Opcode.HEARTBEAT, w).reader(), connection.agreedMinor());
        if (!reply.known()) {
          failure = "the master no longer knows this node (its heartbeats came too late)";
        }
      } catch (IOException e) {
        failure = "heartbeat failed: " + e;
      }
    }
  }

  /** Forgets the master (after its kill): no heartbeats until the next registration. */
  void disconnect() {
    synchronized (link) {
      if (connection != null) {
        connection.close();
        connection = null;
      }
    }
  }

  @Override
  public void close() {
    heartbeats.shutdownNow();
    disconnect();
  }
}
