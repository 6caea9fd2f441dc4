package io.kvpool.client;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.WriteBatchReply;
import io.kvpool.protocol.WriteBatchRequest;
import io.kvpool.protocol.WriteReply;
import io.kvpool.protocol.WriteRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the replicas of one or many puts without helper threads: every node first gets all of its
 * writes (each payload a view of the caller's value, never a copy), then the replies are collected
 * node by node, so the nodes store their copies at the same time. A node that speaks protocol 2.1
 * gets several writes as one WRITE_BATCH (one frame with every payload, one reply with every
 * receipt); an older node gets pipelined WRITEs. Each put learns, per node, its receipt or why not,
 * and whether the node committed that replica at the master itself (2.2).
 */
final class ReplicaWrites {
  /**
   * One granted put: its object, its value (position..limit), where to write it, and its block
   * metadata (null: none), which goes to each node of protocol 2.5 with the value's first slice.
   */
  record Put(
      String key,
      long generation,
      long expiresAtMillis,
      int replicas,
      ByteBuffer value,
      int checksum,
      List<ReplicaGrant> grants,
      BlockMetadata metadata) {}

  /**
   * Block metadata bytes one WRITE_BATCH carries at most; a node's writes carrying more go as
   * pipelined WRITEs, each its own body, so that no body nears the frame's limit.
   */
  private static final long BATCH_METADATA_BYTES = 16 << 20;

  /**
   * Per node of a put: the receipt of a completed, verified replica, or the failure; and the nodes
   * that committed their replica at the master themselves (protocol 2.2).
   */
  record Outcome(
      Map<String, byte[]> receipts, Map<String, KvPoolException> failures, Set<String> committed) {
    /**
     * Whether the put is committed without a PUT_END: every replica written, and each committed by
     * its node.
     */
    boolean committedByNodes(Put put) {
      return failures.isEmpty()
          && receipts.size() == put.grants().size()
          && committed.containsAll(receipts.keySet());
    }
  }

  private record Slice(int put, ReplicaGrant grant, SliceGrant slice) {}

  /** One node's share of the writes and its exchange. */
  private static final class NodeWrites {
    final String endpoint;
    final List<Slice> slices = new ArrayList<>();
    StorageConnections storage;
    RpcConnection connection;
    RpcConnection.Deadline deadline;
    long startedNanos;
    long batchId;
    long[] ids;

    NodeWrites(String endpoint) {
      this.endpoint = endpoint;
    }
  }

  private ReplicaWrites() {}

  static List<Outcome> write(StorageConnections storage, Duration timeout, List<Put> puts) {
    List<Outcome> outcomes = new ArrayList<>(puts.size());
    for (int i = 0; i < puts.size(); i++) {
      outcomes.add(new Outcome(new LinkedHashMap<>(), new LinkedHashMap<>(), new HashSet<>()));
    }
    Map<String, NodeWrites> byNode = new LinkedHashMap<>();
    for (int p = 0; p < puts.size(); p++) {
      for (ReplicaGrant g : puts.get(p).grants()) {
        for (SliceGrant s : g.slices()) {
          byNode.computeIfAbsent(g.endpoint(), NodeWrites::new).slices.add(new Slice(p, g, s));
        }
      }
    }
    for (NodeWrites n : byNode.values()) {
      try {
        n.storage = storage;
        n.startedNanos = System.nanoTime();
        n.connection = storage.borrow(n.endpoint);
      } catch (KvPoolException failure) {
        n.slices.forEach(s -> fail(outcomes, s, failure));
        continue;
      }
      n.deadline = n.connection.deadline(timeout); // disarmed once its replies are read
      try {
        if (batched(n, puts)) {
          List<WriteRequest> items = new ArrayList<>(n.slices.size());
          ByteBuffer[] payloads = new ByteBuffer[n.slices.size()];
          for (int i = 0; i < payloads.length; i++) {
            Slice s = n.slices.get(i);
            items.add(request(puts.get(s.put()), s));
            payloads[i] = part(puts.get(s.put()), s);
          }
          BodyWriter w = new BodyWriter(64 + items.size() * (128 + puts.get(0).key().length()));
          new WriteBatchRequest(items).encode(w, n.connection.agreedMinor());
          n.batchId = n.connection.send(Opcode.WRITE_BATCH, w, payloads);
        } else {
          n.ids = new long[n.slices.size()];
          for (int i = 0; i < n.ids.length; i++) {
            Slice s = n.slices.get(i);
            Put put = puts.get(s.put());
            BodyWriter w = new BodyWriter(128 + put.key().length());
            request(put, s).encode(w, n.connection.agreedMinor());
            n.ids[i] = n.connection.send(Opcode.WRITE, w, part(put, s));
          }
        }
      } catch (IOException failure) {
        n.connection.markBroken();
      }
    }
    for (NodeWrites n : byNode.values()) {
      if (n.connection == null) {
        continue;
      }
      boolean batch = batched(n, puts);
      try (RpcConnection.Deadline d = n.deadline) {
        if (batch) {
          collectBatch(n, puts, outcomes);
        } else {
          collect(n, puts, outcomes);
        }
      }
      storage.exchanged(batch ? Opcode.WRITE_BATCH : Opcode.WRITE, n.startedNanos);
      storage.release(n.endpoint, n.connection);
    }
    return outcomes;
  }

  /**
   * Whether a node's writes go as one WRITE_BATCH: more than one, to a node that speaks protocol
   * 2.1.
   */
  private static boolean batched(NodeWrites n, List<Put> puts) {
    if (n.slices.size() < 2 || !n.storage.batches(n.connection)) {
      return false;
    }
    long metadataBytes = 0;
    for (Slice s : n.slices) {
      BlockMetadata m = metadataOf(puts.get(s.put()), s);
      metadataBytes += m == null ? 0 : m.encodedBytes();
    }
    return metadataBytes <= BATCH_METADATA_BYTES;
  }

  /** The metadata the slice's write carries: the put's, with the value's first slice only. */
  private static BlockMetadata metadataOf(Put put, Slice s) {
    return s.slice().slice().valueOffset() == 0 ? put.metadata() : null;
  }

  private static WriteRequest request(Put put, Slice s) {
    return WriteRequest.of(
            put.key(),
            put.generation(),
            s.slice(),
            put.value().remaining(),
            put.checksum(),
            put.replicas(),
            put.expiresAtMillis())
        .withMetadata(metadataOf(put, s));
  }

  /** The slice's bytes of the value: a view, never a copy. */
  private static ByteBuffer part(Put put, Slice s) {
    ByteBuffer part = put.value().duplicate();
    int from = put.value().position() + s.slice().slice().valueOffset();
    part.limit(from + s.slice().slice().length()).position(from);
    return part;
  }

  private static ConnectionFailedException broken(Put put, Slice s, RpcConnection c) {
    return new ConnectionFailedException(
        "writing key '"
            + put.key()
            + "' to node "
            + s.grant().nodeId()
            + ": the connection to "
            + c.endpoint()
            + " failed");
  }

  /**
   * Reads one node's WRITE replies in order; a refused slice leaves the stream in step, a broken
   * one fails the rest.
   */
  private static void collect(NodeWrites n, List<Put> puts, List<Outcome> outcomes) {
    RpcConnection c = n.connection;
    for (int i = 0; i < n.slices.size(); i++) {
      Slice s = n.slices.get(i);
      if (!c.isUsable() || n.ids == null || n.ids[i] == 0) {
        fail(outcomes, s, broken(puts.get(s.put()), s, c));
        continue;
      }
      try {
        WriteReply reply =
            WriteReply.decode(c.receive(Opcode.WRITE, n.ids[i]).reader(), c.agreedMinor());
        if (reply.receipt().length > 0) {
          received(outcomes.get(s.put()), s.grant().nodeId(), reply.receipt(), reply.committed());
        }
      } catch (IOException failure) {
        fail(
            outcomes,
            s,
            Failures.translate(
                failure,
                c.endpoint(),
                "writing key '" + puts.get(s.put()).key() + "' to node " + s.grant().nodeId()));
      }
    }
  }

  private static void collectBatch(NodeWrites n, List<Put> puts, List<Outcome> outcomes) {
    RpcConnection c = n.connection;
    Slice first = n.slices.get(0);
    if (!c.isUsable() || n.batchId == 0) {
      n.slices.forEach(s -> fail(outcomes, s, broken(puts.get(s.put()), s, c)));
      return;
    }
    WriteBatchReply reply;
    try {
      reply =
          WriteBatchReply.decode(
              c.receive(Opcode.WRITE_BATCH, n.batchId).reader(), c.agreedMinor());
      if (reply.results().size() != n.slices.size()) {
        c.markBroken();
        throw new ProtocolException(
            "node "
                + first.grant().nodeId()
                + " answered "
                + reply.results().size()
                + " of "
                + n.slices.size()
                + " writes");
      }
    } catch (IOException failure) {
      KvPoolException e =
          Failures.translate(
              failure,
              c.endpoint(),
              "writing " + n.slices.size() + " slices to node " + first.grant().nodeId());
      n.slices.forEach(s -> fail(outcomes, s, e));
      return;
    }
    for (int i = 0; i < n.slices.size(); i++) {
      Slice s = n.slices.get(i);
      WriteBatchReply.Result r = reply.results().get(i);
      if (r.status() != ErrorCode.OK) {
        fail(
            outcomes,
            s,
            Failures.fromCode(
                r.status(),
                "writing key '"
                    + puts.get(s.put()).key()
                    + "' to node "
                    + s.grant().nodeId()
                    + " at "
                    + c.endpoint()
                    + ": "
                    + r.message(),
                null));
      } else if (r.receipt().length > 0
          && !outcomes.get(s.put()).failures().containsKey(s.grant().nodeId())) {
        received(outcomes.get(s.put()), s.grant().nodeId(), r.receipt(), r.committed());
      }
    }
  }

  private static void received(Outcome outcome, String nodeId, byte[] receipt, boolean committed) {
    outcome.receipts().put(nodeId, receipt);
    if (committed) {
      outcome.committed().add(nodeId);
    }
  }

  private static void fail(List<Outcome> outcomes, Slice s, KvPoolException failure) {
    outcomes.get(s.put()).failures().putIfAbsent(s.grant().nodeId(), failure);
    outcomes.get(s.put()).receipts().remove(s.grant().nodeId());
    outcomes.get(s.put()).committed().remove(s.grant().nodeId());
  }
}
