package io.kvpool.client;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.CountReply;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Keys;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PinRequest;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.PutStartMetaRequest;
import io.kvpool.protocol.RemoveMatchingReply;
import io.kvpool.protocol.RemoveMatchingRequest;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.StatsReply;
import io.kvpool.protocol.StatusList;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Java client of a kvpool. Metadata goes to the leading master (followed across failovers) and
 * value bytes go directly between the caller's (direct) buffers and storage nodes over pooled
 * connections, so threads sharing a client do not wait for each other. Thread-safe.
 *
 * <p>A put of a key that already exists keeps the stored value (keys of a KV cache name their
 * content); remove the key first to replace it. A put succeeds once at least one replica is written
 * and verified; the master copies the missing ones.
 */
public final class KvPoolClient implements AutoCloseable {
  private final ClientConfig config;
  private final MasterChannel master;
  private final StorageConnections storage;
  private final Handshake masterHandshake;
  private final LocationCache locations;
  private final ClientMetrics metrics;
  private final PutCommits commits;

  /** Small puts through extents (protocol 2.4); null when the client does not use them. */
  private final ExtentPuts extents;

  private KvPoolClient(ClientConfig config) {
    this.config = config;
    this.metrics = ClientMetrics.in(config.metrics());
    this.commits = new PutCommits(metrics);
    Handshake local =
        new Handshake(config.advertisedVersion(), Role.CLIENT, config.poolId(), config.clientId());
    this.master =
        new MasterChannel(
            config.masters(),
            local,
            config.security(),
            config.timeout(),
            config.operationTimeout(),
            metrics);
    if (config.failFastConnect() != null) {
      EndpointProbe.anyAnswers(
          config.masters(), local, config.security(), config.failFastConnect());
    }
    this.masterHandshake = master.connect(config.operationTimeout());
    // storage nodes belong to the master's pool: insist on it from here on
    Handshake toStorage =
        new Handshake(
            config.advertisedVersion(), Role.CLIENT, masterHandshake.poolId(), config.clientId());
    this.storage =
        new StorageConnections(
            () -> toStorage,
            config.security(),
            config.timeout(),
            config.batchRequests(),
            config.failedNodeMemory(),
            metrics);
    this.locations = new LocationCache(config.locationCacheEntries(), config.leaseTtl(), metrics);
    this.extents = config.extents() ? new ExtentPuts(master, storage) : null;
  }

  /**
   * Connects to the leader now, so an unreachable or incompatible pool fails here with a clear
   * message.
   */
  public static KvPoolClient connect(ClientConfig config) {
    return new KvPoolClient(config);
  }

  /** The master's release and protocol version, from the handshake. */
  public VersionInfo serverVersion() {
    return masterHandshake.version();
  }

  // ---- put ----

  /**
   * Stores {@code value} (position..limit, not moved) with {@code replicas} copies on distinct
   * nodes, within the operation timeout, retries included. A key already stored keeps its value (no
   * exception).
   */
  public void put(String key, ByteBuffer value, int replicas) {
    put(key, value, replicas, null);
  }

  /**
   * Stores {@code value} as {@link #put(String, ByteBuffer, int)} does, with {@code metadata} about
   * the KV blocks it holds (null: none): the master keeps it with the object and names it in the KV
   * events it publishes (protocol 2.3; limits in PROTOCOL.md, "Block metadata"). Metadata over a
   * limit throws {@link IllegalArgumentException}; a master of protocol 2.2 cannot keep it, which
   * throws {@link VersionMismatchException}.
   */
  public void put(String key, ByteBuffer value, int replicas, BlockMetadata metadata) {
    long started = System.nanoTime();
    try {
      checkKey(key);
      checkValue(key, value, replicas);
      checkMetadata(key, metadata);
      if (extents != null
          && replicas == 1
          && metadata == null
          && value.remaining() <= ExtentPuts.MAX_VALUE_BYTES) {
        if (extents.put(key, value, crc32c(value), Backoff.until(config.operationTimeout()))) {
          metrics.extentPutsThroughExtents.inc();
          return;
        }
        metrics.extentPutsThroughPutStart.inc();
      }
      PutOperation.Entry e =
          new PutOperation(
                  config,
                  master,
                  storage,
                  commits,
                  List.of(new PutOperation.Entry(key, value, crc32c(value), metadata)),
                  replicas)
              .run()
              .get(0);
      if (e.result == PutOperation.Result.FAILED) {
        throw e.failure;
      }
    } finally {
      metrics.operation(ClientMetrics.Operation.PUT, System.nanoTime() - started);
    }
  }

  /**
   * Stores many values with one master round trip to start them and one to end them (none for puts
   * their storage nodes commit), writing every node's replicas at once; keys that fail are tried
   * again together, all within one operation timeout. Failures are per key in the result.
   */
  public BatchResult putBatch(Map<String, ByteBuffer> values, int replicas) {
    return putBatch(values, replicas, Map.of());
  }

  /**
   * {@link #putBatch(Map, int)} with block metadata for the keys {@code metadata} names (see {@link
   * #put(String, ByteBuffer, int, BlockMetadata)}).
   */
  public BatchResult putBatch(
      Map<String, ByteBuffer> values, int replicas, Map<String, BlockMetadata> metadata) {
    long started = System.nanoTime();
    try {
      checkBatch(values.keySet());
      values.forEach(
          (key, value) -> {
            checkKey(key);
            checkValue(key, value, replicas);
            checkMetadata(key, metadata.get(key));
          });
      List<PutOperation.Entry> entries =
          PutOperation.entries(values, metadata, KvPoolClient::crc32c);
      return PutOperation.batchResult(
          new PutOperation(config, master, storage, commits, entries, replicas).run());
    } finally {
      metrics.operation(ClientMetrics.Operation.PUT_BATCH, System.nanoTime() - started);
    }
  }

  // ---- get ----

  private GetOperation getOperation() {
    return new GetOperation(config, master, storage, locations, masterHandshake.poolId());
  }

  private ObjectNotFoundException notStored(String key) {
    return new ObjectNotFoundException(
        "key '" + key + "' is not stored in pool '" + masterHandshake.poolId() + "'");
  }

  /** The value of {@code key} in a new direct buffer (position 0, limit = size). */
  public ByteBuffer get(String key) {
    long started = System.nanoTime();
    try {
      checkKey(key);
      ByteBuffer[] value = new ByteBuffer[1];
      int size =
          getOperation().read(List.of(key), (i, n) -> value[0] = ByteBuffer.allocateDirect(n))[0];
      if (size < 0) {
        throw notStored(key);
      }
      return value[0].clear();
    } finally {
      metrics.operation(ClientMetrics.Operation.GET, System.nanoTime() - started);
    }
  }

  /**
   * Reads the value of {@code key} into {@code dst} at its position, advances the position past it
   * and returns its length. Throws {@link BufferTooSmallException} (nothing written) when it does
   * not fit.
   */
  public int get(String key, ByteBuffer dst) {
    long started = System.nanoTime();
    try {
      checkKey(key);
      int size = getOperation().read(List.of(key), into(List.of(key), List.of(dst)))[0];
      if (size < 0) {
        throw notStored(key);
      }
      dst.position(dst.position() + size);
      return size;
    } finally {
      metrics.operation(ClientMetrics.Operation.GET, System.nanoTime() - started);
    }
  }

  /**
   * Values of the keys that exist (missing keys are absent), each in a new direct buffer, with at
   * most one master round trip (none for keys whose replica lists this client holds) and one
   * exchange per storage node. A value whose first replica fails is read from the others (asking
   * the master again if its lease ran out); one that no replica can deliver intact fails the whole
   * call with the typed exception.
   */
  public Map<String, ByteBuffer> getBatch(List<String> keys) {
    ByteBuffer[] values = new ByteBuffer[keys.size()];
    int[] sizes = readBatch(keys, (index, size) -> values[index] = ByteBuffer.allocateDirect(size));
    Map<String, ByteBuffer> out = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      if (sizes[i] >= 0) {
        out.put(keys.get(i), values[i].clear());
      }
    }
    return out;
  }

  /**
   * Reads the values of {@code keys} into the caller's buffers, value i into {@code dsts.get(i)}
   * from its position (which is not moved), with at most one master round trip (none for keys whose
   * replica lists this client holds) and one exchange per storage node. Returns each value's
   * length, or -1 for a key that is not stored. Throws {@link BufferTooSmallException} when a value
   * does not fit its buffer, and the typed exception of a value that no replica can deliver intact.
   */
  public int[] getBatch(List<String> keys, List<ByteBuffer> dsts) {
    if (dsts.size() != keys.size()) {
      throw new IllegalArgumentException(keys.size() + " keys but " + dsts.size() + " buffers");
    }
    return readBatch(keys, into(keys, dsts));
  }

  /**
   * The caller's buffers as destinations: value i into {@code dsts.get(i)} from its position (not
   * moved).
   */
  private static GetOperation.Destinations into(List<String> keys, List<ByteBuffer> dsts) {
    return new GetOperation.Destinations() {
      @Override
      public boolean fits(int index, int size) {
        return size <= dsts.get(index).remaining();
      }

      @Override
      public ByteBuffer of(int index, int size) {
        ByteBuffer dst = dsts.get(index);
        if (size > dst.remaining()) {
          throw new BufferTooSmallException(
              "value of key '"
                  + keys.get(index)
                  + "' has "
                  + size
                  + " bytes but its"
                  + " buffer has "
                  + dst.remaining()
                  + " remaining; pass a buffer of at least "
                  + size
                  + " bytes");
        }
        return dst.slice().limit(size);
      }
    };
  }

  private int[] readBatch(List<String> keys, GetOperation.Destinations destinations) {
    long started = System.nanoTime();
    try {
      checkBatch(keys);
      keys.forEach(KvPoolClient::checkKey);
      return getOperation().read(keys, destinations);
    } finally {
      metrics.operation(ClientMetrics.Operation.GET_BATCH, System.nanoTime() - started);
    }
  }

  /**
   * Reads served from cached replica lists (no master round trip), lookups sent to the master,
   * stale entries.
   */
  public LocationCacheStats locationCacheStats() {
    LocationCache.Stats s = locations.stats();
    return new LocationCacheStats(s.hits(), s.misses(), s.stale());
  }

  /**
   * How this client's puts were committed: by their storage nodes (protocol 2.2, no PUT_END) or by
   * a PUT_END.
   */
  public PutCommitStats putCommitStats() {
    return commits.stats();
  }

  // ---- metadata ----

  public boolean exists(String key) {
    long started = System.nanoTime();
    try {
      return existsOne(key);
    } finally {
      metrics.operation(ClientMetrics.Operation.EXISTS, System.nanoTime() - started);
    }
  }

  private boolean existsOne(String key) {
    checkKey(key);
    Backoff backoff = Backoff.until(config.operationTimeout());
    while (true) {
      ErrorCode s = statuses(Opcode.EXISTS, List.of(key), backoff).get(0);
      if (s != ErrorCode.RECOVERING || !backoff.pause()) {
        return s == ErrorCode.OK;
      }
    }
  }

  /**
   * True if removed, false if it was not stored. True also when the leader that received this call
   * was lost before it answered and the next one finds the key gone: the lost leader may have
   * removed it (it delivers a remove's releases before answering), and no call can tell. An object
   * under a read lease is not removed (exception).
   */
  public boolean remove(String key) {
    long started = System.nanoTime();
    try {
      return removeOne(key);
    } finally {
      metrics.operation(ClientMetrics.Operation.REMOVE, System.nanoTime() - started);
    }
  }

  private boolean removeOne(String key) {
    checkKey(key);
    Backoff backoff = Backoff.until(config.operationTimeout());
    boolean[] maybeApplied = {false};
    while (true) {
      BodyWriter w = new BodyWriter(64);
      new KeyList(List.of(key)).encode(w);
      ErrorCode s =
          master
              .call(
                  Opcode.REMOVE,
                  w,
                  r -> StatusList.decode(r).statuses(),
                  backoff,
                  () -> maybeApplied[0] = true)
              .get(0);
      switch (s) {
        case OK:
          locations.invalidate(key, false);
          return true;
        case NOT_FOUND:
          // a master lost before it answered an earlier attempt may have removed it: then this call
          // did
          locations.invalidate(key, false);
          return maybeApplied[0];
        case RECOVERING:
          if (backoff.pause()) {
            continue;
          }
          return false;
        case OBJECT_LEASED:
          throw new KvPoolException(
              "key '"
                  + key
                  + "' is being read (read lease active);"
                  + " retry the remove after the lease expires",
              null,
              ErrorCode.OBJECT_LEASED);
        case PUT_IN_PROGRESS:
          throw new KvPoolException(
              "key '" + key + "' is still being written; retry later",
              null,
              ErrorCode.PUT_IN_PROGRESS);
        default:
          throw Failures.fromCode(s, "remove of key '" + key + "' failed", null);
      }
    }
  }

  /** Removes every object not currently leased or being written; returns how many were removed. */
  public long removeAll() {
    return master.call(Opcode.REMOVE_ALL, null, r -> CountReply.decode(r).count());
  }

  /**
   * Removes every object whose key contains a match of {@code pattern}, an RE2 regular expression
   * (protocol 2.4, REMOVE_MATCHING), within one operation timeout: asks again while the master
   * stopped at its time limit. Objects being read (read lease), copied or written are kept and
   * counted in {@link RemovedMatches#kept()}, as {@link #remove} keeps them.
   *
   * @throws IllegalArgumentException a pattern of 0 or over 1024 UTF-8 bytes
   * @throws VersionMismatchException a master of protocol 2.3 or older
   */
  public RemovedMatches removeMatching(String pattern) {
    String problem = RemoveMatchingRequest.limitProblem(pattern);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    VersionInfo master = masterHandshake.version();
    if (Math.min(master.protocolMinor(), config.advertisedVersion().protocolMinor())
        < RemoveMatchingRequest.MINOR) {
      throw new VersionMismatchException(
          "removing by pattern needs protocol 2."
              + RemoveMatchingRequest.MINOR
              + "; the master (release "
              + master.release()
              + ") speaks protocol "
              + master.protocol());
    }
    BodyWriter w = new BodyWriter();
    new RemoveMatchingRequest(pattern).encode(w);
    Backoff deadline = Backoff.until(config.operationTimeout());
    long removed = 0;
    while (true) {
      RemoveMatchingReply r;
      try {
        r = this.master.call(Opcode.REMOVE_MATCHING, w, RemoveMatchingReply::decode, deadline);
      } catch (KvPoolException e) {
        // a new leader's recovery, another REMOVE_MATCHING running: ask again within the deadline
        if ((e.code() == ErrorCode.RECOVERING || e.code() == ErrorCode.BUSY) && deadline.pause()) {
          continue;
        }
        throw e;
      }
      removed += r.removed();
      locations.clear();
      if (r.finished() || !deadline.pause()) {
        return new RemovedMatches(removed, r.kept(), r.finished());
      }
    }
  }

  /** Sets or clears the soft pin of a stored object: pinned objects are never evicted. */
  public void pin(String key, boolean pinned) {
    checkKey(key);
    BodyWriter w = new BodyWriter();
    new PinRequest(key, pinned).encode(w);
    ErrorCode s = master.call(Opcode.PIN, w, r -> StatusList.decode(r).statuses()).get(0);
    if (s != ErrorCode.OK) {
      throw Failures.fromCode(s, "cannot pin key '" + key + "': not stored", null);
    }
  }

  /**
   * Pool totals; the disk tiers' from a master of protocol 2.5 ({@link PoolStats.DiskTier#NONE}
   * from an older one).
   */
  public PoolStats stats() {
    StatsReply s = master.callVersioned(Opcode.STATS, null, StatsReply::decode);
    StatsReply.DiskTotals d = s.disk();
    return new PoolStats(
        s.capacityBytes(),
        s.usedBytes(),
        s.objects(),
        s.aliveNodes(),
        new PoolStats.DiskTier(d.capacityBytes(), d.usedBytes(), d.tiers(), d.degradedTiers()));
  }

  private List<ErrorCode> statuses(Opcode op, List<String> keys, Backoff deadline) {
    BodyWriter w = new BodyWriter(32 + keys.size() * 48);
    new KeyList(keys).encode(w);
    List<ErrorCode> out = master.call(op, w, r -> StatusList.decode(r).statuses(), deadline);
    MasterChannel.expectCount(out.size(), keys.size(), op);
    return out;
  }

  // ---- checks ----

  private static void checkKey(String key) {
    String problem = Keys.problem(key);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  private void checkMetadata(String key, BlockMetadata metadata) {
    if (metadata == null) {
      return;
    }
    String problem = metadata.limitProblem();
    if (problem != null) {
      throw new IllegalArgumentException("block metadata of key '" + key + "': " + problem);
    }
    VersionInfo master = masterHandshake.version();
    if (Math.min(master.protocolMinor(), VersionInfo.PROTOCOL_MINOR) < PutStartMetaRequest.MINOR) {
      throw new VersionMismatchException(
          "block metadata needs protocol 2."
              + PutStartMetaRequest.MINOR
              + "; the master (release "
              + master.release()
              + ") speaks protocol "
              + master.protocol()
              + ": put without metadata, or upgrade the master");
    }
  }

  private static void checkValue(String key, ByteBuffer value, int replicas) {
    if (value == null) {
      throw new IllegalArgumentException("value of key '" + key + "' is null");
    }
    if (value.remaining() == 0) {
      throw new IllegalArgumentException(
          "value of key '" + key + "' is empty; values have 1 byte or more");
    }
    if (value.remaining() > ProtocolLimits.MAX_VALUE_BYTES) {
      throw new NoSpaceException(
          "value of key '"
              + key
              + "' has "
              + value.remaining()
              + " bytes; the limit is "
              + ProtocolLimits.MAX_VALUE_BYTES
              + " bytes per value");
    }
    if (replicas < 1 || replicas > 255) {
      throw new IllegalArgumentException("replicas must be within 1..255, got " + replicas);
    }
  }

  private static void checkBatch(java.util.Collection<String> keys) {
    if (keys.size() > ProtocolLimits.MAX_BATCH) {
      throw new IllegalArgumentException(
          "batch of "
              + keys.size()
              + " keys exceeds the limit of "
              + ProtocolLimits.MAX_BATCH
              + "; split it");
    }
  }

  private static int crc32c(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return (int) crc.getValue();
  }

  @Override
  public void close() {
    if (extents != null) {
      extents.close();
    }
    master.close();
    storage.close();
  }
}
