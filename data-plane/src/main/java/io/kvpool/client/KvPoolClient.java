package io.kvpool.client;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.CountReply;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PinRequest;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.ReadReply;
import io.kvpool.protocol.ReadRequest;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.StatsReply;
import io.kvpool.protocol.StatusList;
import io.kvpool.protocol.WriteRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

/**
 * Java client of a kvpool. Metadata goes to the master and value bytes go directly between the caller's (direct)
 * buffers and storage nodes, both over pooled connections, so threads sharing a client do not wait for each other.
 * Thread-safe.
 *
 * <p>A put of a key that already exists keeps the stored value (keys of a KV cache name their content); remove
 * the key first to replace it.
 */
public final class KvPoolClient implements AutoCloseable {
  private final ClientConfig config;
  private final MasterChannel master;
  private final StorageConnections storage;
  private final Handshake masterHandshake;

  private KvPoolClient(ClientConfig config) {
    this.config = config;
    Handshake local = new Handshake(config.advertisedVersion(), Role.CLIENT, config.poolId(), config.clientId());
    this.master = new MasterChannel(config.master(), local, config.timeout());
    this.masterHandshake = master.connect();
    // storage nodes belong to the master's pool: insist on it from here on
    Handshake toStorage = new Handshake(config.advertisedVersion(), Role.CLIENT, masterHandshake.poolId(),
        config.clientId());
    this.storage = new StorageConnections(() -> toStorage, config.timeout());
  }

  /** Connects to the master now, so an unreachable or incompatible master fails here with a clear message. */
  public static KvPoolClient connect(ClientConfig config) {
    return new KvPoolClient(config);
  }

  /** The master's release and protocol version, from the handshake. */
  public VersionInfo serverVersion() {
    return masterHandshake.version();
  }

  // ---- put ----

  /** Stores {@code value} (position..limit, not moved) with {@code replicas} copies on distinct nodes. */
  public void put(String key, ByteBuffer value, int replicas) {
    checkKey(key);
    checkValue(key, value, replicas);
    int checksum = crc32c(value);
    KvPoolException last = null;
    for (int attempt = 0; attempt <= config.retries(); attempt++) {
      PutStartResult start;
      try {
        start = putStart(List.of(new PutStartItem(key, value.remaining(), checksum, replicas))).get(0);
      } catch (ConnectionFailedException e) {
        // the reply may have been lost after the master allocated: undo before trying again
        last = e;
        revokeQuietly(List.of(key));
        continue;
      }
      if (start.status() == ErrorCode.ALREADY_EXISTS) {
        return;
      }
      if (start.status() != ErrorCode.OK) {
        throw Failures.fromCode(start.status(), "put of key '" + key + "' refused by master: " + start.message(), null);
      }
      try {
        writeReplicas(key, start.replicas(), value, checksum);
      } catch (KvPoolException e) {
        revokeQuietly(List.of(key));
        if (!Failures.transientFailure(e)) {
          throw e;
        }
        last = e;
        continue;
      }
      ErrorCode end = statuses(Opcode.PUT_END, List.of(key), false).get(0);
      if (end == ErrorCode.OK) {
        return;
      }
      last = new ConnectionFailedException("put of key '" + key + "' was dropped by the master before it completed ("
          + end + "): a storage node holding it failed or the put took longer than its grant");
    }
    throw last;
  }

  /**
   * Stores many values with one master round trip for PutStart and one for PutEnd. Failures are per key in the
   * result; nothing is retried.
   */
  public BatchResult putBatch(Map<String, ByteBuffer> values, int replicas) {
    List<String> keys = new ArrayList<>(values.keySet());
    checkBatch(keys);
    List<PutStartItem> items = new ArrayList<>(keys.size());
    int[] checksums = new int[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      ByteBuffer value = values.get(key);
      checkKey(key);
      checkValue(key, value, replicas);
      checksums[i] = crc32c(value);
      items.add(new PutStartItem(key, value.remaining(), checksums[i], replicas));
    }
    List<PutStartResult> started = putStart(items);
    List<String> written = new ArrayList<>();
    List<String> present = new ArrayList<>();
    List<String> revoke = new ArrayList<>();
    Map<String, KvPoolException> failed = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      PutStartResult r = started.get(i);
      if (r.status() == ErrorCode.ALREADY_EXISTS) {
        present.add(key);
      } else if (r.status() != ErrorCode.OK) {
        failed.put(key, Failures.fromCode(r.status(), "put of key '" + key + "' refused: " + r.message(), null));
      } else {
        try {
          writeReplicas(key, r.replicas(), values.get(key), checksums[i]);
          written.add(key);
        } catch (KvPoolException e) {
          failed.put(key, e);
          revoke.add(key);
        }
      }
    }
    if (!revoke.isEmpty()) {
      revokeQuietly(revoke);
    }
    List<String> stored = new ArrayList<>();
    if (!written.isEmpty()) {
      List<ErrorCode> ends = statuses(Opcode.PUT_END, written, false);
      for (int i = 0; i < written.size(); i++) {
        if (ends.get(i) == ErrorCode.OK) {
          stored.add(written.get(i));
        } else {
          failed.put(written.get(i), new ConnectionFailedException("put of key '" + written.get(i)
              + "' was dropped by the master before it completed (" + ends.get(i) + ")"));
        }
      }
    }
    return new BatchResult(stored, present, failed);
  }

  private List<PutStartResult> putStart(List<PutStartItem> items) {
    BodyWriter w = new BodyWriter(64 + items.size() * 64);
    new PutStartRequest(items).encode(w);
    List<PutStartResult> results = master.call(Opcode.PUT_START, w, r -> PutStartReply.decode(r).results(), false);
    expectCount(results.size(), items.size(), Opcode.PUT_START);
    return results;
  }

  /**
   * Writes all replicas without helper threads: first every node gets the WRITE requests of its slices (each payload a
   * view of the value, not a copy), then the replies are collected, so the nodes store their copies at the same time.
   * Fails with the first error after every reply was read (or its connection given up).
   */
  private void writeReplicas(String key, List<ReplicaGrant> grants, ByteBuffer value, int checksum) {
    int n = grants.size();
    RpcConnection[] connections = new RpcConnection[n];
    RpcConnection.Deadline[] deadlines = new RpcConnection.Deadline[n];
    long[][] requestIds = new long[n][];
    KvPoolException failure = null;
    for (int i = 0; i < n && failure == null; i++) {
      ReplicaGrant grant = grants.get(i);
      try {
        connections[i] = storage.borrow(grant.endpoint());
      } catch (KvPoolException e) {
        failure = e;
        break;
      }
      RpcConnection c = connections[i];
      deadlines[i] = c.deadline(config.timeout()); // disarmed once its replies are read
      List<SliceGrant> slices = grant.slices();
      requestIds[i] = new long[slices.size()];
      try {
        for (int s = 0; s < slices.size(); s++) {
          SliceGrant slice = slices.get(s);
          BodyWriter w = new BodyWriter(128 + key.length());
          WriteRequest.of(key, grant, slice, value.remaining(), checksum).encode(w);
          ByteBuffer part = value.duplicate();
          part.position(value.position() + slice.valueOffset())
              .limit(value.position() + slice.valueOffset() + slice.length());
          requestIds[i][s] = c.send(Opcode.WRITE, w, part);
        }
      } catch (IOException e) {
        failure = Failures.translate(e, c.endpoint(), "writing key '" + key + "' to node " + grant.nodeId());
      }
    }
    for (int i = 0; i < n && connections[i] != null; i++) {
      KvPoolException e = awaitWrites(key, grants.get(i), connections[i], deadlines[i], requestIds[i]);
      if (failure == null) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Reads the replies to one node's WRITE requests, then returns the connection; the first failure, or null. */
  private KvPoolException awaitWrites(String key, ReplicaGrant grant, RpcConnection c, RpcConnection.Deadline deadline,
                                      long[] requestIds) {
    KvPoolException failure = null;
    try (RpcConnection.Deadline d = deadline) {
      for (long id : requestIds) {
        if (!c.isUsable()) {
          break; // a send or read failed part-way: the stream is out of step and the connection will be closed
        }
        try {
          c.receive(Opcode.WRITE, id);
        } catch (IOException e) {
          // a refused slice (RemoteErrorException) leaves the stream in step: the replies of the others still follow
          if (failure == null) {
            failure = Failures.translate(e, c.endpoint(), "writing key '" + key + "' to node " + grant.nodeId());
          }
        }
      }
    } finally {
      storage.release(grant.endpoint(), c);
    }
    return failure;
  }

  private void revokeQuietly(List<String> keys) {
    try {
      statuses(Opcode.PUT_REVOKE, keys, false);
    } catch (KvPoolException ignored) {
      // the master revokes abandoned puts itself when their grants expire
    }
  }

  // ---- get ----

  /** The value of {@code key} in a new direct buffer (position 0, limit = size). */
  public ByteBuffer get(String key) {
    checkKey(key);
    KvPoolException last = null;
    for (int attempt = 0; attempt <= config.retries(); attempt++) {
      ReplicaListResult r = replicas(List.of(key)).get(0);
      if (r.status() != ErrorCode.OK) {
        throw new ObjectNotFoundException("key '" + key + "' is not stored in pool '" + masterHandshake.poolId() + "'");
      }
      ByteBuffer dst = ByteBuffer.allocateDirect(r.size());
      try {
        readAny(key, r, dst);
        return dst.clear();
      } catch (ConnectionFailedException | ChecksumMismatchException e) {
        last = e;
      }
    }
    throw last;
  }

  /**
   * Reads the value of {@code key} into {@code dst} at its position, advances the position past it and returns
   * its length. Throws {@link BufferTooSmallException} (nothing written) when it does not fit.
   */
  public int get(String key, ByteBuffer dst) {
    checkKey(key);
    KvPoolException last = null;
    for (int attempt = 0; attempt <= config.retries(); attempt++) {
      ReplicaListResult r = replicas(List.of(key)).get(0);
      if (r.status() != ErrorCode.OK) {
        throw new ObjectNotFoundException("key '" + key + "' is not stored in pool '" + masterHandshake.poolId() + "'");
      }
      if (r.size() > dst.remaining()) {
        throw new BufferTooSmallException("value of key '" + key + "' has " + r.size() + " bytes but the buffer has "
            + dst.remaining() + " remaining; pass a buffer of at least " + r.size() + " bytes");
      }
      ByteBuffer slice = dst.slice();
      slice.limit(r.size());
      try {
        readAny(key, r, slice);
        dst.position(dst.position() + r.size());
        return r.size();
      } catch (ConnectionFailedException | ChecksumMismatchException e) {
        last = e;
      }
    }
    throw last;
  }

  /**
   * Values of the keys that exist (missing keys are absent), with one master round trip. A stored value that no
   * replica can deliver intact fails the whole call with the typed exception, as {@link #get(String)} would.
   */
  public Map<String, ByteBuffer> getBatch(List<String> keys) {
    checkBatch(keys);
    keys.forEach(KvPoolClient::checkKey);
    List<ReplicaListResult> results = replicas(keys);
    Map<String, ByteBuffer> out = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      ReplicaListResult r = results.get(i);
      if (r.status() == ErrorCode.OK) {
        ByteBuffer dst = ByteBuffer.allocateDirect(r.size());
        readAny(keys.get(i), r, dst);
        out.put(keys.get(i), dst.clear());
      }
    }
    return out;
  }

  private List<ReplicaListResult> replicas(List<String> keys) {
    BodyWriter w = new BodyWriter(32 + keys.size() * 48);
    new KeyList(keys).encode(w);
    List<ReplicaListResult> results =
        master.call(Opcode.GET_REPLICAS, w, r -> ReplicaListReply.decode(r).results(), true);
    expectCount(results.size(), keys.size(), Opcode.GET_REPLICAS);
    return results;
  }

  /** Reads one replica chosen at random, falling back to the others; verifies CRC32C. */
  private void readAny(String key, ReplicaListResult r, ByteBuffer dst) {
    List<ReplicaLocation> replicas = r.replicas();
    int count = replicas.size();
    int first = count > 1 ? ThreadLocalRandom.current().nextInt(count) : 0;
    KvPoolException last = null; // built only when a replica fails: the success path creates no exception
    int start = dst.position();
    for (int i = 0; i < count; i++) {
      ReplicaLocation loc = replicas.get((first + i) % count);
      dst.position(start);
      try {
        readReplica(loc, dst);
      } catch (ConnectionFailedException e) {
        last = e;
        continue;
      }
      dst.position(start);
      int actual = crc32c(dst);
      if (actual == r.checksum()) {
        return;
      }
      last = new ChecksumMismatchException(String.format("value of key '%s' read from node %s has CRC32C 0x%08x,"
          + " expected 0x%08x; tried %d replica(s)", key, loc.nodeId(), actual, r.checksum(), count));
    }
    throw last != null ? last : new ObjectNotFoundException("key '" + key + "' has no readable replica");
  }

  /** Reads every slice of one replica into its place in {@code dst} (from dst's position). */
  private void readReplica(ReplicaLocation loc, ByteBuffer dst) {
    RpcConnection c = storage.borrow(loc.endpoint());
    try (RpcConnection.Deadline d = c.deadline(config.timeout())) {
      for (Slice s : loc.slices()) {
        if ((long) s.valueOffset() + s.length() > dst.remaining()) {
          throw new ProtocolException("slice of node " + loc.nodeId() + " ends past the value's size");
        }
        BodyWriter w = new BodyWriter(24);
        new ReadRequest(s.segmentId(), s.offset(), s.length()).encode(w);
        ReadReply reply = ReadReply.decode(c.call(Opcode.READ, w).reader());
        if (reply.length() != s.length()) {
          c.markBroken();
          throw new ProtocolException("node " + loc.nodeId() + " sent " + reply.length() + " bytes, expected "
              + s.length());
        }
        ByteBuffer target = dst.duplicate();
        target.position(dst.position() + s.valueOffset()).limit(dst.position() + s.valueOffset() + s.length());
        c.readPayload(target);
      }
    } catch (RemoteErrorException e) {
      throw new ConnectionFailedException("node " + loc.nodeId() + " refused the read: " + e.getMessage(), e);
    } catch (IOException e) {
      throw Failures.translate(e, c.endpoint(), "reading from node " + loc.nodeId());
    } finally {
      storage.release(loc.endpoint(), c);
    }
  }

  // ---- metadata ----

  public boolean exists(String key) {
    checkKey(key);
    return statuses(Opcode.EXISTS, List.of(key), true).get(0) == ErrorCode.OK;
  }

  /** True if removed, false if it was not stored. An object under a read lease is not removed (exception). */
  public boolean remove(String key) {
    checkKey(key);
    ErrorCode s = statuses(Opcode.REMOVE, List.of(key), true).get(0);
    return switch (s) {
      case OK -> true;
      case NOT_FOUND -> false;
      case OBJECT_LEASED -> throw new KvPoolException("key '" + key + "' is being read (read lease active);"
          + " retry the remove after the lease expires");
      case INVALID_STATE -> throw new KvPoolException("key '" + key + "' is still being written; retry later");
      default -> throw Failures.fromCode(s, "remove of key '" + key + "' failed", null);
    };
  }

  /** Removes every object not currently leased or being written; returns how many were removed. */
  public long removeAll() {
    return master.call(Opcode.REMOVE_ALL, null, r -> CountReply.decode(r).count(), true);
  }

  /** Sets or clears the soft pin of a stored object: pinned objects are never evicted. */
  public void pin(String key, boolean pinned) {
    checkKey(key);
    BodyWriter w = new BodyWriter();
    new PinRequest(key, pinned).encode(w);
    ErrorCode s = master.call(Opcode.PIN, w, r -> StatusList.decode(r).statuses(), true).get(0);
    if (s != ErrorCode.OK) {
      throw Failures.fromCode(s, "cannot pin key '" + key + "': not stored", null);
    }
  }

  public PoolStats stats() {
    StatsReply s = master.call(Opcode.STATS, null, StatsReply::decode, true);
    return new PoolStats(s.capacityBytes(), s.usedBytes(), s.objects(), s.aliveNodes());
  }

  private List<ErrorCode> statuses(Opcode op, List<String> keys, boolean idempotent) {
    BodyWriter w = new BodyWriter(32 + keys.size() * 48);
    new KeyList(keys).encode(w);
    List<ErrorCode> out = master.call(op, w, r -> StatusList.decode(r).statuses(), idempotent);
    expectCount(out.size(), keys.size(), op);
    return out;
  }

  // ---- checks ----

  private static void expectCount(int got, int expected, Opcode op) {
    if (got != expected) {
      throw new KvPoolException("master answered " + op + " with " + got + " results for " + expected + " keys");
    }
  }

  private static void checkKey(String key) {
    if (key == null || key.isEmpty()) {
      throw new IllegalArgumentException("key must not be empty");
    }
    if (key.length() * 3 <= ProtocolLimits.MAX_KEY_BYTES) {
      return; // a UTF-16 unit never takes more than 3 UTF-8 bytes: short keys need no encoding to check
    }
    int bytes = key.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > ProtocolLimits.MAX_KEY_BYTES) {
      throw new IllegalArgumentException("key of " + bytes + " UTF-8 bytes exceeds the limit of "
          + ProtocolLimits.MAX_KEY_BYTES);
    }
  }

  private static void checkValue(String key, ByteBuffer value, int replicas) {
    if (value == null) {
      throw new IllegalArgumentException("value of key '" + key + "' is null");
    }
    if (value.remaining() > ProtocolLimits.MAX_VALUE_BYTES) {
      throw new NoSpaceException("value of key '" + key + "' has " + value.remaining() + " bytes; the limit is "
          + ProtocolLimits.MAX_VALUE_BYTES + " bytes per value");
    }
    if (replicas < 1 || replicas > 255) {
      throw new IllegalArgumentException("replicas must be within 1..255, got " + replicas);
    }
  }

  private static void checkBatch(List<String> keys) {
    if (keys.size() > ProtocolLimits.MAX_BATCH) {
      throw new IllegalArgumentException("batch of " + keys.size() + " keys exceeds the limit of "
          + ProtocolLimits.MAX_BATCH + "; split it");
    }
  }

  private static int crc32c(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return (int) crc.getValue();
  }

  @Override
  public void close() {
    master.close();
    storage.close();
  }
}
