package io.kvpool.client;

import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.KeyList;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.ReplicaListReply;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The get protocol, once, for one key or many, within the operation's one deadline: keys whose
 * replica lists this client holds are read straight from a storage node; the others are looked up
 * in one GET_REPLICAS; every node's reads go at once; a cached list a node refuses is looked up
 * again (one request for all of them); keys a recovering new leader has not found yet are asked
 * again only after the others were read, so their leases do not tick away; a read that fails tries
 * the key's other replicas, then asks the master again, within the client's retries. A node whose
 * connection failed or timed out lately, in this operation or another of the client's, is read from
 * last ({@link FailedNodes}): a frozen node costs one exchange's timeout, not one per key or get.
 */
final class GetOperation {
  /** Where value i goes, once its size is known. */
  interface Destinations {
    /**
     * Whether a value of {@code size} bytes fits (a cached size that does not is checked with the
     * master).
     */
    default boolean fits(int index, int size) {
      return true;
    }

    ByteBuffer of(int index, int size);
  }

  private final ClientConfig config;
  private final MasterChannel master;
  private final StorageConnections storage;
  private final LocationCache locations;
  private final String poolId;
  private final Backoff deadline;
  private final FailedNodes failedNodes;

  GetOperation(
      ClientConfig config,
      MasterChannel master,
      StorageConnections storage,
      LocationCache locations,
      String poolId) {
    this.config = config;
    this.master = master;
    this.storage = storage;
    this.locations = locations;
    this.poolId = poolId;
    this.deadline = Backoff.until(config.operationTimeout());
    this.failedNodes = storage.failed();
  }

  /** Reads {@code keys}; returns each value's length, or -1 for a key that is not stored. */
  int[] read(List<String> keys, Destinations destinations) {
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
        if (r != null) {
          locations.invalidate(
              keys.get(i), false); // the key may have been replaced: ask the master
        }
        unknown.add(i);
      }
    }
    long asked = System.nanoTime();
    List<Integer> recovering = unknown.isEmpty() ? List.of() : lookupAll(keys, unknown, lists);
    List<Integer> failed = new ArrayList<>();
    // cached lists a node refuses (or whose bytes do not verify) are looked up again, all in one
    // request
    List<Integer> stale = readAll(keys, cached, lists, dst, sizes, destinations, false, 0);
    failed.addAll(readAll(keys, unknown, lists, dst, sizes, destinations, true, asked));
    for (int i : stale) {
      locations.invalidate(keys.get(i), true);
    }
    if (!stale.isEmpty()) {
      asked = System.nanoTime();
      recovering = concat(recovering, lookupAll(keys, stale, lists));
      failed.addAll(readAll(keys, stale, lists, dst, sizes, destinations, true, asked));
    }
    if (!recovering.isEmpty()) {
      asked = System.nanoTime();
      for (int i : recovering) {
        lists[i] = lookupOrMissing(keys.get(i));
      }
      failed.addAll(readAll(keys, recovering, lists, dst, sizes, destinations, true, asked));
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
   * Reads the values at {@code indexes} whose replica lists are found (missing ones keep size -1),
   * every node's reads at once; remembers the lists read successfully when {@code cacheable}.
   * Returns the indexes whose read failed.
   */
  private List<Integer> readAll(
      List<String> keys,
      List<Integer> indexes,
      ReplicaListResult[] lists,
      ByteBuffer[] dst,
      int[] sizes,
      Destinations destinations,
      boolean cacheable,
      long askedAt) {
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
    List<KvPoolException> failures =
        ReplicaReads.read(storage, deadline.within(config.timeout()), reads);
    List<Integer> failed = new ArrayList<>();
    Set<String> unreachable = Set.of(); // allocated at the first failure only
    for (int k = 0; k < reading.size(); k++) {
      int i = reading.get(k);
      if (failures.get(k) == null) {
        failedNodes.answered(reads.get(k).replica().nodeId());
        sizes[i] = lists[i].size();
        if (cacheable) {
          locations.put(keys.get(i), lists[i], askedAt);
        }
      } else {
        failed.add(i);
        if (failures.get(k) instanceof ConnectionFailedException) {
          if (unreachable.isEmpty()) {
            unreachable = new HashSet<>();
          }
          unreachable.add(reads.get(k).replica().nodeId());
        }
      }
    }
    unreachable.forEach(failedNodes::failed); // once per node: its reads shared one exchange
    return failed;
  }

  /**
   * A replica to read: one on a node that did not fail lately when there is one, then one in memory
   * when there is one (a disk replica is read from its node's tier).
   */
  private ReplicaReads.Read pick(String key, ReplicaListResult r, ByteBuffer dst) {
    List<ReplicaLocation> candidates = r.replicas();
    if (!failedNodes.none()) {
      List<ReplicaLocation> answering =
          candidates.stream().filter(l -> !failedNodes.readLast(l.nodeId())).toList();
      candidates = answering.isEmpty() ? candidates : answering;
    }
    List<ReplicaLocation> inMemory = candidates.stream().filter(l -> !l.onDisk()).toList();
    List<ReplicaLocation> from = inMemory.isEmpty() ? candidates : inMemory;
    ReplicaLocation loc = from.get(ThreadLocalRandom.current().nextInt(from.size()));
    return new ReplicaReads.Read(key, r, loc, dst);
  }

  /**
   * One GET_REPLICAS for the keys at {@code indexes}, their lists into {@code lists}; returns the
   * indexes a recovering new leader answered RECOVERING (not found yet), for the caller to ask
   * again.
   */
  private List<Integer> lookupAll(
      List<String> keys, List<Integer> indexes, ReplicaListResult[] lists) {
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

  /**
   * The replica list of a key, waiting out a new leader's recovery within the deadline; not found
   * is final.
   */
  private ReplicaListResult lookup(String key) {
    while (true) {
      ReplicaListResult r = replicas(List.of(key)).get(0);
      if (r.status() == ErrorCode.OK) {
        return r;
      }
      if (r.status() != ErrorCode.RECOVERING || !deadline.pause()) {
        throw new ObjectNotFoundException(
            "key '"
                + key
                + "' is not stored in pool '"
                + poolId
                + "'"
                + (r.status() == ErrorCode.RECOVERING ? " (the master was still recovering)" : ""));
      }
    }
  }

  /**
   * Reads one replica after another; when all fail (e.g. tokens expired, replicas moved) asks the
   * master again, within the client's retries and the deadline. When the retries are spent and the
   * nodes still answer that they do not hold what the master lists (a move to disk or a repair the
   * master has not heard of yet), it goes on asking after a pause until the deadline: the master's
   * own not found ends it at once. Returns the replica list the value was read with.
   */
  private ReplicaListResult readWithRetries(String key, ReplicaListResult first, ByteBuffer dst) {
    ReplicaListResult r = first;
    for (int attempt = 0; ; attempt++) {
      if (attempt > 0) {
        r = lookup(key);
        if (r.size() > dst.remaining()) {
          throw new KvPoolException(
              "value of key '" + key + "' changed size while being read; read it again");
        }
      }
      KvPoolException last = readAny(key, r, dst);
      if (last == null) {
        return r;
      }
      boolean again =
          attempt < config.retries()
              ? !deadline.expired()
              : last instanceof ObjectNotFoundException && deadline.pause();
      if (!again) {
        throw last;
      }
    }
  }

  /**
   * Tries the replicas in random order, those on nodes that failed lately last; null on success,
   * else the last failure.
   */
  private KvPoolException readAny(String key, ReplicaListResult r, ByteBuffer dst) {
    List<ReplicaLocation> replicas = new ArrayList<>(r.replicas());
    Collections.shuffle(replicas, ThreadLocalRandom.current());
    replicas.sort(Comparator.comparing(l -> failedNodes.readLast(l.nodeId())));
    KvPoolException last = new ObjectNotFoundException("key '" + key + "' has no readable replica");
    for (ReplicaLocation loc : replicas) {
      KvPoolException failure =
          ReplicaReads.read(
                  storage,
                  deadline.within(config.timeout()),
                  List.of(new ReplicaReads.Read(key, r, loc, dst)))
              .get(0);
      if (failure == null) {
        failedNodes.answered(loc.nodeId());
        return null;
      }
      if (failure instanceof ConnectionFailedException) {
        failedNodes.failed(loc.nodeId());
      }
      last = failure;
    }
    return last;
  }

  private List<ReplicaListResult> replicas(List<String> keys) {
    BodyWriter w = new BodyWriter(32 + keys.size() * 48);
    new KeyList(keys).encode(w);
    List<ReplicaListResult> results =
        master.call(Opcode.GET_REPLICAS, w, r -> ReplicaListReply.decode(r).results(), deadline);
    MasterChannel.expectCount(results.size(), keys.size(), Opcode.GET_REPLICAS);
    return results;
  }
}
