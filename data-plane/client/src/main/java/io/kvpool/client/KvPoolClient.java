package io.kvpool.client;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.CountReply;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Keys;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PinRequest;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutEndRequest;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.PutRevokeRequest;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.StatsReply;
import io.kvpool.protocol.StatusList;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.zip.CRC32C;

/**
 * Java client of a kvpool. Metadata goes to the leading master (followed across failovers) and value bytes go
 * directly between the caller's (direct) buffers and storage nodes over pooled connections, so threads sharing a
 * client do not wait for each other. Thread-safe.
 *
 * <p>A put of a key that already exists keeps the stored value (keys of a KV cache name their content); remove the
 * key first to replace it. A put succeeds once at least one replica is written and verified; the master copies the
 * missing ones.
 */
public final class KvPoolClient implements AutoCloseable {
  private static final SecureRandom PUT_IDS = new SecureRandom();

  private final ClientConfig config;
  private final MasterChannel master;
  private final StorageConnections storage;
  private final Handshake masterHandshake;
  private final LocationCache locations;
  private final ClientMetrics metrics;
  private final PutCommits commits;

  private KvPoolClient(ClientConfig config) {
    this.config = config;
    this.metrics = ClientMetrics.in(config.metrics());
    this.commits = new PutCommits(metrics);
    Handshake local = new Handshake(config.advertisedVersion(), Role.CLIENT, config.poolId(), config.clientId());
    this.master = new MasterChannel(config.masters(), local, config.security(), config.timeout(),
        config.operationTimeout(), metrics);
    this.masterHandshake = master.connect();
    // storage nodes belong to the master's pool: insist on it from here on
    Handshake toStorage = new Handshake(config.advertisedVersion(), Role.CLIENT, masterHandshake.poolId(),
        config.clientId());
    this.storage = new StorageConnections(() -> toStorage, config.security(), config.timeout(),
        config.batchRequests(), metrics);
    this.locations = new LocationCache(config.locationCacheEntries(), config.leaseTtl(), metrics);
  }

  /** Connects to the leader now, so an unreachable or incompatible pool fails here with a clear message. */
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
    long started = System.nanoTime();
    try {
      putOne(key, value, replicas);
    } finally {
      metrics.operation(ClientMetrics.Operation.PUT, System.nanoTime() - started);
    }
  }

  private void putOne(String key, ByteBuffer value, int replicas) {
    checkKey(key);
    checkValue(key, value, replicas);
    int checksum = crc32c(value);
    Set<String> avoid = new LinkedHashSet<>();
    Backoff backoff = Backoff.until(config.operationTimeout());
    KvPoolException last = null;
    int dataFailures = 0;
    while (true) {
      PutStartItem item = new PutStartItem(key, value.remaining(), checksum, replicas, PUT_IDS.nextLong(),
          List.copyOf(avoid));
      PutStartResult start = putStart(List.of(item)).get(0);
      ErrorCode status = start.status();
      if (status == ErrorCode.ALREADY_EXISTS) {
        return;
      }
      if (status == ErrorCode.OK) {
        ReplicaWrites.Put put = new ReplicaWrites.Put(key, start.generation(), start.expiresAtMillis(), replicas, value,
            checksum, start.replicas());
        ReplicaWrites.Outcome outcome = ReplicaWrites.write(storage, config.timeout(), List.of(put)).get(0);
        outcome.failures().forEach((node, e) -> {
          if (Failures.transientFailure(e)) {
            avoid.add(node); // the master does not know yet: place the retry elsewhere
          }
        });
        if (outcome.committedByNodes(put)) {
          commits.byNodes(1);
          return;
        }
        if (!outcome.receipts().isEmpty()) {
          ErrorCode end = endPuts(List.of(endItem(key, start.generation(), outcome.receipts())), backoff).get(0);
          if (end == ErrorCode.OK) {
            commits.byPutEnd(1);
            return;
          }
          // NOT_FOUND: the put was lost (a new leader never heard of it, or it expired); the next round starts it
          // again, and finds the value stored (ALREADY_EXISTS) if a node's inventory brought it back meanwhile
          last = new ConnectionFailedException("put of key '" + key + "' was dropped by the master before it"
              + " completed (" + end + "): a storage node holding it failed or the put outlived its grant");
        } else {
          revokeQuietly(List.of(new PutRef(key, start.generation())));
          last = outcome.failures().values().iterator().next();
          if (!Failures.retryable(last)) {
            throw last;
          }
        }
        if (++dataFailures > config.retries()) {
          throw last;
        }
      } else if (Failures.retryable(status)) {
        last = Failures.fromCode(status, "put of key '" + key + "': " + start.message(), null);
      } else {
        throw Failures.fromCode(status, "put of key '" + key + "' refused by master: " + start.message(), null);
      }
      if (!backoff.pause()) {
        throw last;
      }
    }
  }

  /**
   * Stores many values with one master round trip to start them and one to end them, writing every node's replicas
   * at once. Failures are per key in the result; a put lost in a leader change is started again through
   * {@link #put(String, ByteBuffer, int)}.
   */
  public BatchResult putBatch(Map<String, ByteBuffer> values, int replicas) {
    long started = System.nanoTime();
    try {
      return putMany(values, replicas);
    } finally {
      metrics.operation(ClientMetrics.Operation.PUT_BATCH, System.nanoTime() - started);
    }
  }

  private BatchResult putMany(Map<String, ByteBuffer> values, int replicas) {
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
      items.add(new PutStartItem(key, value.remaining(), checksums[i], replicas, PUT_IDS.nextLong(), List.of()));
    }
    List<PutStartResult> started = putStart(items);
    List<String> present = new ArrayList<>();
    Map<String, KvPoolException> failed = new LinkedHashMap<>();
    List<ReplicaWrites.Put> puts = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      String key = keys.get(i);
      PutStartResult r = started.get(i);
      if (r.status() == ErrorCode.ALREADY_EXISTS) {
        present.add(key);
      } else if (r.status() != ErrorCode.OK) {
        failed.put(key, Failures.fromCode(r.status(), "put of key '" + key + "' refused: " + r.message(), null));
      } else {
        puts.add(new ReplicaWrites.Put(key, r.generation(), r.expiresAtMillis(), replicas, values.get(key),
            checksums[i], r.replicas()));
      }
    }
    List<ReplicaWrites.Outcome> outcomes = ReplicaWrites.write(storage, config.timeout(), puts);
    List<PutEndItem> ends = new ArrayList<>();
    List<PutRef> revoke = new ArrayList<>();
    List<String> again = new ArrayList<>();
    List<String> committed = new ArrayList<>(); // by their storage nodes: no PUT_END
    for (int i = 0; i < puts.size(); i++) {
      ReplicaWrites.Put p = puts.get(i);
      ReplicaWrites.Outcome o = outcomes.get(i);
      if (o.receipts().isEmpty()) {
        KvPoolException failure = o.failures().values().iterator().next();
        if (Failures.retryable(failure)) {
          again.add(p.key()); // e.g. a grant a new leader's node keys no longer accept: start that put again
        } else {
          failed.put(p.key(), failure);
        }
        revoke.add(new PutRef(p.key(), p.generation()));
      } else if (o.committedByNodes(p)) {
        committed.add(p.key());
      } else {
        ends.add(endItem(p.key(), p.generation(), o.receipts()));
      }
    }
    commits.byNodes(committed.size());
    if (!revoke.isEmpty()) {
      revokeQuietly(revoke);
    }
    List<String> stored = new ArrayList<>(committed);
    for (String key : again) {
      try {
        putOne(key, values.get(key), replicas);
        stored.add(key);
      } catch (KvPoolException e) {
        failed.put(key, e);
      }
    }
    if (!ends.isEmpty()) {
      List<ErrorCode> results = endPuts(ends, Backoff.until(config.operationTimeout()));
      for (int i = 0; i < ends.size(); i++) {
        String key = ends.get(i).key();
        if (results.get(i) == ErrorCode.OK) {
          stored.add(key);
          commits.byPutEnd(1);
          continue;
        }
        // lost in a leader change (or expired): the single-key path starts it again within the operation timeout
        try {
          putOne(key, values.get(key), replicas);
          stored.add(key);
        } catch (KvPoolException e) {
          failed.put(key, e);
        }
      }
    }
    return new BatchResult(stored, present, failed);
  }

  /**
   * PUT_END, asking again for the entries a recovering new leader cannot answer yet (RECOVERING: the nodes holding
   * the replicas have not re-registered); the other statuses are final.
   */
  private List<ErrorCode> endPuts(List<PutEndItem> items, Backoff backoff) {
    ErrorCode[] out = new ErrorCode[items.size()];
    List<Integer> pending = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      pending.add(i);
    }
    while (!pending.isEmpty()) {
      List<PutEndItem> ask = new ArrayList<>(pending.size());
      pending.forEach(i -> ask.add(items.get(i)));
      List<ErrorCode> answers = putEnd(ask);
      List<Integer> again = new ArrayList<>();
      for (int j = 0; j < answers.size(); j++) {
        out[pending.get(j)] = answers.get(j);
        if (answers.get(j) == ErrorCode.RECOVERING) {
          again.add(pending.get(j));
        }
      }
      pending = again;
      if (!pending.isEmpty() && !backoff.pause()) {
        break;
      }
    }
    return List.of(out);
  }

  private static PutEndItem endItem(String key, long generation, Map<String, byte[]> receipts) {
    List<Receipt> list = new ArrayList<>(receipts.size());
    receipts.forEach((node, r) -> list.add(new Receipt(node, r)));
    return new PutEndItem(key, generation, list);
  }

  private List<PutStartResult> putStart(List<PutStartItem> items) {
    BodyWriter w = new BodyWriter(64 + items.size() * 64);
    new PutStartRequest(items).encode(w);
    List<PutStartResult> results = master.call(Opcode.PUT_START, w, r -> PutStartReply.decode(r).results());
    expectCount(results.size(), items.size(), Opcode.PUT_START);
    return results;
  }

  private List<ErrorCode> putEnd(List<PutEndItem> items) {
    BodyWriter w = new BodyWriter(64 + items.size() * 96);
    new PutEndRequest(items).encode(w);
    List<ErrorCode> out = master.call(Opcode.PUT_END, w, r -> StatusList.decode(r).statuses());
    expectCount(out.size(), items.size(), Opcode.PUT_END);
    return out;
  }

  private void revokeQuietly(List<PutRef> puts) {
    try {
      BodyWriter w = new BodyWriter(32 + puts.size() * 48);
      new PutRevokeRequest(puts).encode(w);
      master.call(Opcode.PUT_REVOKE, w, r -> StatusList.decode(r).statuses());
    } catch (KvPoolException ignored) {
      // the master revokes abandoned puts itself when their grants expire
    }
  }

  // ---- get ----

  /** The value of {@code key} in a new direct buffer (position 0, limit = size). */
  public ByteBuffer get(String key) {
    long started = System.nanoTime();
    try {
      return getNew(key);
    } finally {
      metrics.operation(ClientMetrics.Operation.GET, System.nanoTime() - started);
    }
  }

  private ByteBuffer getNew(String key) {
    checkKey(key);
    ReplicaListResult cached = locations.get(key);
    if (cached != null) {
      ByteBuffer dst = ByteBuffer.allocateDirect(cached.size());
      if (readCached(key, cached, dst)) {
        return dst.clear();
      }
    }
    long asked = System.nanoTime();
    ReplicaListResult r = lookup(key);
    ByteBuffer dst = ByteBuffer.allocateDirect(r.size());
    locations.put(key, readWithRetries(key, r, dst), asked);
    return dst.clear();
  }

  /**
   * Reads the value of {@code key} into {@code dst} at its position, advances the position past it and returns
   * its length. Throws {@link BufferTooSmallException} (nothing written) when it does not fit.
   */
  public int get(String key, ByteBuffer dst) {
    long started = System.nanoTime();
    try {
      return getInto(key, dst);
    } finally {
      metrics.operation(ClientMetrics.Operation.GET, System.nanoTime() - started);
    }
  }

  private int getInto(String key, ByteBuffer dst) {
    checkKey(key);
    ReplicaListResult cached = locations.get(key);
    if (cached != null && cached.size() <= dst.remaining()) {
      ByteBuffer slice = dst.slice();
      slice.limit(cached.size());
      if (readCached(key, cached, slice)) {
        dst.position(dst.position() + cached.size());
        return cached.size();
      }
    } else if (cached != null) {
      locations.invalidate(key, false); // the key may have been replaced: ask the master before refusing the buffer
    }
    long asked = System.nanoTime();
    ReplicaListResult r = lookup(key);
    if (r.size() > dst.remaining()) {
      throw new BufferTooSmallException("value of key '" + key + "' has " + r.size() + " bytes but the buffer has "
          + dst.remaining() + " remaining; pass a buffer of at least " + r.size() + " bytes");
    }
    ByteBuffer slice = dst.slice();
    slice.limit(r.size());
    locations.put(key, readWithRetries(key, r, slice), asked);
    dst.position(dst.position() + r.size());
    return r.size();
  }

  /**
   * A read straight from one replica of a cached replica list; false (the entry dropped) when the node refuses it
   * or the bytes do not verify: the caller then asks the master.
   */
  private boolean readCached(String key, ReplicaListResult cached, ByteBuffer dst) {
    List<ReplicaLocation> replicas = cached.replicas();
    ReplicaLocation loc = replicas.get(replicas.size() > 1 ? ThreadLocalRandom.current().nextInt(replicas.size()) : 0);
    KvPoolException failure = ReplicaReads.read(storage, config.timeout(),
        List.of(new ReplicaReads.Read(key, cached, loc, dst))).get(0);
    if (failure == null) {
      return true;
    }
    locations.invalidate(key, true);
    return false;
  }

  /** The replica list of a key, waiting out a new leader's recovery; not found is final. */
  private ReplicaListResult lookup(String key) {
    Backoff backoff = Backoff.until(config.operationTimeout());
    while (true) {
      ReplicaListResult r = replicas(List.of(key)).get(0);
      if (r.status() == ErrorCode.OK) {
        return r;
      }
      if (r.status() != ErrorCode.RECOVERING || !backoff.pause()) {
        throw new ObjectNotFoundException("key '" + key + "' is not stored in pool '" + masterHandshake.poolId()
            + "'" + (r.status() == ErrorCode.RECOVERING ? " (the master was still recovering)" : ""));
      }
    }
  }

  /**
   * Reads one replica after another; when all fail (e.g. tokens expired, replicas moved) asks the master again.
   * Returns the replica list the value was read with.
   */
  private ReplicaListResult readWithRetries(String key, ReplicaListResult first, ByteBuffer dst) {
    ReplicaListResult r = first;
    KvPoolException last = null;
    for (int attempt = 0; attempt <= config.retries(); attempt++) {
      if (attempt > 0) {
        r = lookup(key);
        if (r.size() > dst.remaining()) {
          throw new KvPoolException("value of key '" + key + "' changed size while being read; read it again");
        }
      }
      last = readAny(key, r, dst);
      if (last == null) {
        return r;
      }
    }
    throw last;
  }

  /** Tries the replicas in random order; null on success, else the last failure. */
  private KvPoolException readAny(String key, ReplicaListResult r, ByteBuffer dst) {
    List<ReplicaLocation> replicas = r.replicas();
    int first = replicas.size() > 1 ? ThreadLocalRandom.current().nextInt(replicas.size()) : 0;
    KvPoolException last = new ObjectNotFoundException("key '" + key + "' has no readable replica");
    for (int i = 0; i < replicas.size(); i++) {
      ReplicaLocation loc = replicas.get((first + i) % replicas.size());
      KvPoolException failure = ReplicaReads.read(storage, config.timeout(),
          List.of(new ReplicaReads.Read(key, r, loc, dst))).get(0);
      if (failure == null) {
        return null;
      }
      last = failure;
    }
    return last;
  }

  /**
   * Values of the keys that exist (missing keys are absent), each in a new direct buffer, with at most one master
   * round trip (none for keys whose replica lists this client holds) and one exchange per storage node. A value whose
   * first replica fails is read from the others (asking the master again if its lease ran out); one that no replica
   * can deliver intact fails the whole call with the typed exception.
   */
  public Map<String, ByteBuffer> getBatch(List<String> keys) {
    ByteBuffer[] values = new ByteBuffer[keys.size()];
    int[] sizes = readBatch(keys, new Destinations() {
      @Override
      public ByteBuffer of(int index, int size) {
        return values[index] = ByteBuffer.allocateDirect(size);
      }
    });
    Map<String, ByteBuffer> out = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i++) {
      if (sizes[i] >= 0) {
        out.put(keys.get(i), values[i].clear());
      }
    }
    return out;
  }

  /**
   * Reads the values of {@code keys} into the caller's buffers, value i into {@code dsts.get(i)} from its position
   * (which is not moved), with at most one master round trip (none for keys whose replica lists this client holds) and
   * one exchange per storage node. Returns each value's length, or -1 for a key that is not stored. Throws
   * {@link BufferTooSmallException} when a value does not fit its buffer, and the typed exception of a value that no
   * replica can deliver intact.
   */
  public int[] getBatch(List<String> keys, List<ByteBuffer> dsts) {
    if (dsts.size() != keys.size()) {
      throw new IllegalArgumentException(keys.size() + " keys but " + dsts.size() + " buffers");
    }
    return readBatch(keys, new Destinations() {
      @Override
      public boolean fits(int index, int size) {
        return size <= dsts.get(index).remaining();
      }

      @Override
      public ByteBuffer of(int index, int size) {
        ByteBuffer dst = dsts.get(index);
        if (size > dst.remaining()) {
          throw new BufferTooSmallException("value of key '" + keys.get(index) + "' has " + size + " bytes but its"
              + " buffer has " + dst.remaining() + " remaining");
        }
        return dst.slice().limit(size);
      }
    });
  }

  /** Where value i of a batch goes, once its size is known. */
  private interface Destinations {
    /** Whether a value of {@code size} bytes fits (a cached size that does not is checked with the master). */
    default boolean fits(int index, int size) {
      return true;
    }

    ByteBuffer of(int index, int size);
  }

  private int[] readBatch(List<String> keys, Destinations destinations) {
    long started = System.nanoTime();
    try {
      return readMany(keys, destinations);
    } finally {
      metrics.operation(ClientMetrics.Operation.GET_BATCH, System.nanoTime() - started);
    }
  }

  private int[] readMany(List<String> keys, Destinations destinations) {
    checkBatch(keys);
    keys.forEach(KvPoolClient::checkKey);
    int[] sizes = new int[keys.size()];
    Arrays.fill(sizes, -1);
    ReplicaListResult[] lists = new ReplicaListResult[keys.size()];
    ByteBuffer[] dst = new ByteBuffer[keys.size()];
    List<Integer> cached = new ArrayList<>();
    List<Integer> unknown = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      ReplicaListResult r = locations.get(keys.get(i));
      if (r != null && destinations.fits(i, r.size())) {
        lists[i] = r;
        cached.add(i);
      } else {
        unknown.add(i);
      }
    }
    long asked = System.nanoTime();
    List<Integer> recovering = unknown.isEmpty() ? List.of() : lookupAll(keys, unknown, lists);
    List<Integer> failed = new ArrayList<>();
    // cached lists a node refuses (or whose bytes do not verify) are looked up again, all in one request
    List<Integer> stale = readAll(keys, cached, lists, dst, sizes, destinations, null, 0);
    failed.addAll(readAll(keys, unknown, lists, dst, sizes, destinations, unknown, asked));
    for (int i : stale) {
      locations.invalidate(keys.get(i), true);
    }
    if (!stale.isEmpty()) {
      asked = System.nanoTime();
      recovering = concat(recovering, lookupAll(keys, stale, lists));
      failed.addAll(readAll(keys, stale, lists, dst, sizes, destinations, stale, asked));
    }
    if (!recovering.isEmpty()) {
      // keys a new leader has not found yet: waited out only now, so that the other keys' leases did not tick away
      asked = System.nanoTime();
      for (int i : recovering) {
        lists[i] = lookupOrMissing(keys.get(i));
      }
      failed.addAll(readAll(keys, recovering, lists, dst, sizes, destinations, recovering, asked));
    }
    for (int i : failed) {
      lists[i] = readWithRetries(keys.get(i), lists[i], dst[i]);
      sizes[i] = lists[i].size();
    }
    return sizes;
  }

  private static List<Integer> concat(List<Integer> a, List<Integer> b) {
    List<Integer> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /**
   * Reads the values at {@code indexes} whose replica lists are found (missing ones keep size -1), every node's reads
   * at once; remembers the lists of {@code cacheable} keys read successfully. Returns the indexes whose read failed.
   */
  private List<Integer> readAll(List<String> keys, List<Integer> indexes, ReplicaListResult[] lists, ByteBuffer[] dst,
                                int[] sizes, Destinations destinations, List<Integer> cacheable, long askedAt) {
    List<Integer> reading = new ArrayList<>();
    List<ReplicaReads.Read> reads = new ArrayList<>();
    for (int i : indexes) {
      ReplicaListResult r = lists[i];
      if (r != null && r.status() == ErrorCode.OK && !r.replicas().isEmpty()) {
        if (dst[i] == null || dst[i].remaining() != r.size()) {
          dst[i] = destinations.of(i, r.size()); // a stale list's replacement may have another size
        }
        reads.add(pick(keys.get(i), r, dst[i]));
        reading.add(i);
      }
    }
    if (reads.isEmpty()) {
      return List.of();
    }
    List<KvPoolException> failures = ReplicaReads.read(storage, config.timeout(), reads);
    List<Integer> failed = new ArrayList<>();
    for (int k = 0; k < reading.size(); k++) {
      int i = reading.get(k);
      if (failures.get(k) == null) {
        sizes[i] = lists[i].size();
        if (cacheable != null) {
          locations.put(keys.get(i), lists[i], askedAt);
        }
      } else {
        failed.add(i);
      }
    }
    return failed;
  }

  private static ReplicaReads.Read pick(String key, ReplicaListResult r, ByteBuffer dst) {
    ReplicaLocation loc = r.replicas().get(ThreadLocalRandom.current().nextInt(r.replicas().size()));
    return new ReplicaReads.Read(key, r, loc, dst);
  }

  /**
   * One GET_REPLICAS for the keys at {@code indexes}, their lists into {@code lists}; returns the indexes a recovering
   * new leader answered RECOVERING (not found yet), for the caller to ask again.
   */
  private List<Integer> lookupAll(List<String> keys, List<Integer> indexes, ReplicaListResult[] lists) {
    List<String> ask = new ArrayList<>(indexes.size());
    indexes.forEach(i -> ask.add(keys.get(i)));
    List<ReplicaListResult> results = replicas(ask);
    List<Integer> recovering = new ArrayList<>();
    for (int k = 0; k < indexes.size(); k++) {
      lists[indexes.get(k)] = results.get(k);
      if (results.get(k).status() == ErrorCode.RECOVERING) {
        recovering.add(indexes.get(k));
      }
    }
    return recovering;
  }

  private ReplicaListResult lookupOrMissing(String key) {
    try {
      return lookup(key);
    } catch (ObjectNotFoundException e) {
      return ReplicaListResult.missing(ErrorCode.NOT_FOUND);
    }
  }

  private List<ReplicaListResult> replicas(List<String> keys) {
    BodyWriter w = new BodyWriter(32 + keys.size() * 48);
    new KeyList(keys).encode(w);
    List<ReplicaListResult> results = master.call(Opcode.GET_REPLICAS, w, r -> ReplicaListReply.decode(r).results());
    expectCount(results.size(), keys.size(), Opcode.GET_REPLICAS);
    return results;
  }

  /** Reads served from cached replica lists (no master round trip), lookups sent to the master, stale entries. */
  public LocationCacheStats locationCacheStats() {
    LocationCache.Stats s = locations.stats();
    return new LocationCacheStats(s.hits(), s.misses(), s.stale());
  }

  /** How this client's puts were committed: by their storage nodes (protocol 2.2, no PUT_END) or by a PUT_END. */
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
      ErrorCode s = statuses(Opcode.EXISTS, List.of(key)).get(0);
      if (s != ErrorCode.RECOVERING || !backoff.pause()) {
        return s == ErrorCode.OK;
      }
    }
  }

  /** True if removed, false if it was not stored. An object under a read lease is not removed (exception). */
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
    while (true) {
      ErrorCode s = statuses(Opcode.REMOVE, List.of(key)).get(0);
      switch (s) {
        case OK:
          locations.invalidate(key, false);
          return true;
        case NOT_FOUND:
          return false;
        case RECOVERING:
          if (backoff.pause()) {
            continue;
          }
          return false;
        case OBJECT_LEASED:
          throw new KvPoolException("key '" + key + "' is being read (read lease active);"
              + " retry the remove after the lease expires");
        case PUT_IN_PROGRESS:
          throw new KvPoolException("key '" + key + "' is still being written; retry later");
        default:
          throw Failures.fromCode(s, "remove of key '" + key + "' failed", null);
      }
    }
  }

  /** Removes every object not currently leased or being written; returns how many were removed. */
  public long removeAll() {
    return master.call(Opcode.REMOVE_ALL, null, r -> CountReply.decode(r).count());
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

  public PoolStats stats() {
    StatsReply s = master.call(Opcode.STATS, null, StatsReply::decode);
    return new PoolStats(s.capacityBytes(), s.usedBytes(), s.objects(), s.aliveNodes());
  }

  private List<ErrorCode> statuses(Opcode op, List<String> keys) {
    BodyWriter w = new BodyWriter(32 + keys.size() * 48);
    new KeyList(keys).encode(w);
    List<ErrorCode> out = master.call(op, w, r -> StatusList.decode(r).statuses());
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
    String problem = Keys.problem(key);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  private static void checkValue(String key, ByteBuffer value, int replicas) {
    if (value == null) {
      throw new IllegalArgumentException("value of key '" + key + "' is null");
    }
    if (value.remaining() == 0) {
      throw new IllegalArgumentException("value of key '" + key + "' is empty; values have 1 byte or more");
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
