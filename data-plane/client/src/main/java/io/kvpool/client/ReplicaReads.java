package io.kvpool.client;

import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ReadBatchReply;
import io.kvpool.protocol.ReadBatchRequest;
import io.kvpool.protocol.ReadObjectRequest;
import io.kvpool.protocol.ReadReply;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.Slice;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Reads many values at once, one replica each, with the master's read tokens. A node that speaks
 * protocol 2.1 gets all of its reads as one READ_BATCH and answers with one reply that carries
 * every value; an older node gets them as pipelined READs. Payloads go straight into the callers'
 * buffers; a value held in one slice has its CRC32C computed while its bytes arrive, the others
 * once they are all there. Each read learns whether it succeeded or why not (the caller falls back
 * to other replicas or to the master).
 */
final class ReplicaReads {
  /** One value to read from {@code replica} into {@code dst} (position..position + size). */
  record Read(String key, ReplicaListResult result, ReplicaLocation replica, ByteBuffer dst) {
    /** The whole value is one slice: its checksum can be taken as it arrives. */
    boolean oneSlice() {
      List<Slice> s = replica.slices();
      return s.size() == 1 && s.get(0).valueOffset() == 0 && s.get(0).length() == result.size();
    }
  }

  private record Request(int read, Slice slice) {}

  /** One node's share of the reads and its exchange. */
  private static final class NodeReads {
    final String endpoint;
    final List<Request> requests = new ArrayList<>();
    StorageConnections storage;
    RpcConnection connection;
    RpcConnection.Deadline deadline;
    long startedNanos;
    long batchId;
    long[] ids;

    NodeReads(String endpoint) {
      this.endpoint = endpoint;
    }
  }

  private ReplicaReads() {}

  /** One entry per read: null when its bytes arrived and match the CRC32C, else the failure. */
  static List<KvPoolException> read(
      StorageConnections storage, Duration timeout, List<Read> reads) {
    KvPoolException[] failures = new KvPoolException[reads.size()];
    CRC32C[] checksums = new CRC32C[reads.size()];
    Map<String, NodeReads> byNode = new LinkedHashMap<>();
    for (int i = 0; i < reads.size(); i++) {
      Read read = reads.get(i);
      if (read.oneSlice() || read.replica().onDisk()) {
        checksums[i] = new CRC32C();
      }
      if (read.replica().onDisk()) {
        failures[i] = readObject(storage, timeout, read, checksums[i]);
        continue;
      }
      for (Slice s : read.replica().slices()) {
        byNode
            .computeIfAbsent(read.replica().endpoint(), NodeReads::new)
            .requests
            .add(new Request(i, s));
      }
    }
    for (NodeReads n : byNode.values()) {
      try {
        n.storage = storage;
        n.startedNanos = System.nanoTime();
        n.connection = storage.borrow(n.endpoint);
      } catch (KvPoolException failure) {
        n.requests.forEach(r -> failures[r.read()] = failure);
        continue;
      }
      n.deadline = n.connection.deadline(timeout);
      try {
        if (batched(n)) {
          List<ReadRequest> items = new ArrayList<>(n.requests.size());
          for (Request r : n.requests) {
            items.add(request(reads.get(r.read()), r.slice()));
          }
          BodyWriter w = new BodyWriter(64 + items.size() * (64 + reads.get(0).key().length()));
          new ReadBatchRequest(items).encode(w);
          n.batchId = n.connection.send(Opcode.READ_BATCH, w);
        } else {
          n.ids = new long[n.requests.size()];
          for (int i = 0; i < n.ids.length; i++) {
            Request r = n.requests.get(i);
            Read read = reads.get(r.read());
            BodyWriter w = new BodyWriter(64 + read.key().length());
            request(read, r.slice()).encode(w);
            n.ids[i] = n.connection.send(Opcode.READ, w);
          }
        }
      } catch (IOException failure) {
        n.connection.markBroken();
      }
    }
    List<Runnable> replies = new ArrayList<>(byNode.size());
    for (NodeReads n : byNode.values()) {
      if (n.connection != null) {
        replies.add(() -> collect(n, reads, failures, checksums));
      }
    }
    storage.collectors().runAll(replies); // from every node at once
    List<KvPoolException> out = new ArrayList<>(reads.size());
    for (int i = 0; i < reads.size(); i++) {
      if (failures[i] == null) {
        failures[i] = verify(reads.get(i), checksums[i]);
      }
      out.add(failures[i]);
    }
    return out;
  }

  /** Takes in one node's replies, then returns its connection. */
  private static void collect(
      NodeReads n, List<Read> reads, KvPoolException[] failures, CRC32C[] checksums) {
    boolean batch = batched(n);
    try (RpcConnection.Deadline d = n.deadline) {
      if (batch) {
        collectBatch(n, reads, failures, checksums);
      } else {
        collectEach(n, reads, failures, checksums);
      }
    }
    n.storage.exchanged(batch ? Opcode.READ_BATCH : Opcode.READ, n.startedNanos);
    n.storage.release(n.endpoint, n.connection);
  }

  /**
   * Reads a replica in its node's disk tier (no slices): one READ_OBJECT (protocol 2.3) whose
   * payload is the whole value, checksummed as it arrives. Null when it arrived, else the failure.
   */
  private static KvPoolException readObject(
      StorageConnections storage, Duration timeout, Read read, CRC32C checksum) {
    RpcConnection c;
    long started = System.nanoTime();
    try {
      c = storage.borrow(read.replica().endpoint());
    } catch (KvPoolException failure) {
      return failure;
    }
    try (RpcConnection.Deadline d = c.deadline(timeout)) {
      BodyWriter w = new BodyWriter(64 + read.key().length());
      new ReadObjectRequest(
              read.key(),
              read.result().generation(),
              read.result().expiresAtMillis(),
              read.replica().token())
          .encode(w);
      long id = c.send(Opcode.READ_OBJECT, w);
      ByteBuffer target = read.dst().duplicate();
      target.limit(target.position() + read.result().size());
      ReadReply reply =
          ReadReply.decode(
              c.receiveWithPayload(Opcode.READ_OBJECT, id, ReadReply.BODY_BYTES, target, checksum)
                  .reader());
      if (reply.length() != read.result().size()) {
        c.markBroken();
        throw new ProtocolException(
            "node "
                + read.replica().nodeId()
                + " sent "
                + reply.length()
                + " bytes, expected "
                + read.result().size());
      }
      return null;
    } catch (IOException failure) {
      return Failures.translate(
          failure,
          c.endpoint(),
          "reading key '" + read.key() + "' from the disk tier of node " + read.replica().nodeId());
    } finally {
      storage.exchanged(Opcode.READ_OBJECT, started);
      storage.release(read.replica().endpoint(), c);
    }
  }

  /**
   * Whether a node's reads go as one READ_BATCH: more than one, to a node that speaks protocol 2.1.
   */
  private static boolean batched(NodeReads n) {
    return n.requests.size() > 1 && n.storage.batches(n.connection);
  }

  private static ReadRequest request(Read read, Slice s) {
    return new ReadRequest(
        read.key(),
        read.result().generation(),
        s.segmentId(),
        s.offset(),
        s.length(),
        read.result().expiresAtMillis(),
        read.replica().token());
  }

  private static ConnectionFailedException broken(Read read, RpcConnection c) {
    return new ConnectionFailedException(
        "reading key '"
            + read.key()
            + "' from node "
            + read.replica().nodeId()
            + ": the connection to "
            + c.endpoint()
            + " failed");
  }

  /** Where the slice's bytes go in the read's buffer. */
  private static ByteBuffer target(Read read, Slice s) {
    ByteBuffer target = read.dst().duplicate();
    int from = read.dst().position() + s.valueOffset();
    return target.limit(from + s.length()).position(from);
  }

  /**
   * Reads the slice's payload into its place in the read's buffer, checksumming a one-slice value
   * as it comes.
   */
  private static void payload(RpcConnection c, Read read, Slice s, CRC32C checksum)
      throws IOException {
    ByteBuffer target = target(read, s);
    if (checksum != null) {
      c.readPayload(target, checksum);
    } else {
      c.readPayload(target);
    }
  }

  /** The replies of pipelined READs (a node before protocol 2.1, or one read). */
  private static void collectEach(
      NodeReads n, List<Read> reads, KvPoolException[] failures, CRC32C[] checksums) {
    RpcConnection c = n.connection;
    for (int i = 0; i < n.requests.size(); i++) {
      Request r = n.requests.get(i);
      Read read = reads.get(r.read());
      if (!c.isUsable() || n.ids == null || n.ids[i] == 0) {
        failures[r.read()] = broken(read, c);
        continue;
      }
      try {
        // the one READ on this connection: its payload is read as the reply arrives
        // (FrameChannel.readWithPayload)
        boolean alone = n.requests.size() == 1;
        Frame frame =
            alone
                ? c.receiveWithPayload(
                    Opcode.READ,
                    n.ids[i],
                    ReadReply.BODY_BYTES,
                    target(read, r.slice()),
                    checksums[r.read()])
                : c.receive(Opcode.READ, n.ids[i]);
        ReadReply reply = ReadReply.decode(frame.reader());
        if (reply.length() != r.slice().length()) {
          c.markBroken();
          throw new ProtocolException(
              "node "
                  + read.replica().nodeId()
                  + " sent "
                  + reply.length()
                  + " bytes, expected "
                  + r.slice().length());
        }
        if (!alone) {
          payload(c, read, r.slice(), checksums[r.read()]);
        }
      } catch (IOException failure) {
        if (failures[r.read()] == null) {
          failures[r.read()] =
              Failures.translate(
                  failure,
                  c.endpoint(),
                  "reading key '" + read.key() + "' from node " + read.replica().nodeId());
        }
      }
    }
  }

  private static void collectBatch(
      NodeReads n, List<Read> reads, KvPoolException[] failures, CRC32C[] checksums) {
    RpcConnection c = n.connection;
    Read first = reads.get(n.requests.get(0).read());
    if (!c.isUsable() || n.batchId == 0) {
      n.requests.forEach(r -> failures[r.read()] = broken(reads.get(r.read()), c));
      return;
    }
    ReadBatchReply reply;
    try {
      reply = ReadBatchReply.decode(c.receive(Opcode.READ_BATCH, n.batchId).reader());
      if (reply.results().size() != n.requests.size()) {
        c.markBroken();
        throw new ProtocolException(
            "node "
                + first.replica().nodeId()
                + " answered "
                + reply.results().size()
                + " of "
                + n.requests.size()
                + " reads");
      }
    } catch (IOException failure) {
      KvPoolException e =
          Failures.translate(
              failure,
              c.endpoint(),
              "reading " + n.requests.size() + " values from node " + first.replica().nodeId());
      n.requests.forEach(r -> failures[r.read()] = e);
      return;
    }
    for (int i = 0; i < n.requests.size(); i++) {
      Request r = n.requests.get(i);
      Read read = reads.get(r.read());
      ReadBatchReply.Result result = reply.results().get(i);
      if (!c.isUsable()) {
        failures[r.read()] = broken(read, c);
        continue;
      }
      if (result.status() != ErrorCode.OK) {
        if (failures[r.read()] == null) {
          failures[r.read()] =
              Failures.fromCode(
                  result.status(),
                  "reading key '"
                      + read.key()
                      + "' from node "
                      + read.replica().nodeId()
                      + " at "
                      + c.endpoint()
                      + ": "
                      + result.message(),
                  null);
        }
        continue;
      }
      try {
        if (result.length() != r.slice().length()) {
          c.markBroken();
          throw new ProtocolException(
              "node "
                  + read.replica().nodeId()
                  + " sent "
                  + result.length()
                  + " bytes, expected "
                  + r.slice().length());
        }
        payload(c, read, r.slice(), checksums[r.read()]);
      } catch (IOException failure) {
        if (failures[r.read()] == null) {
          failures[r.read()] =
              Failures.translate(
                  failure,
                  c.endpoint(),
                  "reading key '" + read.key() + "' from node " + read.replica().nodeId());
        }
      }
    }
  }

  private static KvPoolException verify(Read read, CRC32C taken) {
    int actual;
    if (taken != null) {
      actual = (int) taken.getValue();
    } else {
      ByteBuffer value = read.dst().duplicate();
      value.limit(value.position() + read.result().size());
      CRC32C crc = new CRC32C();
      crc.update(value);
      actual = (int) crc.getValue();
    }
    return actual == read.result().checksum()
        ? null
        : new ChecksumMismatchException(
            String.format(
                "value of key '%s' read from node %s has CRC32C 0x%08x, expected 0x%08x",
                read.key(), read.replica().nodeId(), actual, read.result().checksum()));
  }
}
