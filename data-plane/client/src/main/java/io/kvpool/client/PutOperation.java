package io.kvpool.client;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutEndRequest;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.PutRevokeRequest;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartMetaRequest;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.StatusList;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The put protocol, once, for one key or many (PROTOCOL.md, "Requests" and "Commits by storage
 * nodes"): rounds of one PUT_START for every key still open, the writes of all of them at once,
 * then one PUT_END for those their nodes did not commit and one PUT_REVOKE for those no replica
 * reached, until every key is stored, found present, or failed — all within the operation's one
 * deadline. Each key keeps its own state: the put id a retried PUT_START repeats (so a lost reply
 * gets the same put back), the nodes to avoid after they failed it, its data failures, its last
 * error. A PUT_START also avoids the nodes that failed the client's other operations lately ({@link
 * FailedNodes}); the master places a put on avoided nodes only when too few others can serve.
 */
final class PutOperation {
  private static final SecureRandom PUT_IDS = new SecureRandom();

  /** How a key ended. */
  enum Result {
    STORED,
    PRESENT,
    FAILED
  }

  /** One key's put across rounds. */
  static final class Entry {
    final String key;
    final ByteBuffer value;
    final int checksum;
    final Set<String> avoid = new LinkedHashSet<>();
    long putId = PUT_IDS.nextLong();

    /**
     * A PUT_START of this operation was granted: a later ALREADY_EXISTS may be this put, completed.
     */
    boolean started;

    int dataFailures;
    KvPoolException failure;
    Result result;

    /** What the writer says about the KV blocks the value holds (protocol 2.3), or null. */
    final BlockMetadata metadata;

    Entry(String key, ByteBuffer value, int checksum) {
      this(key, value, checksum, null);
    }

    Entry(String key, ByteBuffer value, int checksum, BlockMetadata metadata) {
      this.key = key;
      this.value = value;
      this.checksum = checksum;
      this.metadata = metadata;
    }

    /**
     * The nodes its next PUT_START avoids: those that failed it, then as many of {@code
     * failedLately} (the client's, the latest first) as the request allows.
     */
    List<String> avoiding(List<String> failedLately) {
      if (failedLately.isEmpty()) {
        return List.copyOf(avoid); // the common case: no node failed lately
      }
      Set<String> all = new LinkedHashSet<>(avoid);
      for (String node : failedLately) {
        if (all.size() < FailedNodes.MAX_RECENT) {
          all.add(node);
        }
      }
      return List.copyOf(all);
    }

    /**
     * Its data path failed: the next round starts a new put (new put id), unless it ran out of
     * attempts.
     */
    void failedData(KvPoolException e, int retries) {
      failure = e;
      putId = PUT_IDS.nextLong();
      if (!Failures.retryable(e) || ++dataFailures > retries) {
        result = Result.FAILED;
      }
    }
  }

  private final ClientConfig config;
  private final MasterChannel master;
  private final StorageConnections storage;
  private final PutCommits commits;
  private final int replicas;
  private final Backoff deadline;
  private final List<Entry> entries;

  PutOperation(
      ClientConfig config,
      MasterChannel master,
      StorageConnections storage,
      PutCommits commits,
      List<Entry> entries,
      int replicas) {
    this.config = config;
    this.master = master;
    this.storage = storage;
    this.commits = commits;
    this.entries = entries;
    this.replicas = replicas;
    this.deadline = Backoff.until(config.operationTimeout());
  }

  /**
   * Runs rounds until every entry has its result; each entry's {@code result} (and {@code failure})
   * is set.
   */
  List<Entry> run() {
    while (true) {
      List<Entry> open = new ArrayList<>();
      for (Entry e : entries) {
        if (e.result == null) {
          open.add(e);
        }
      }
      if (open.isEmpty()) {
        return entries;
      }
      try {
        round(open);
      } catch (KvPoolException e) {
        // a master exchange failed for the whole round: retried within the deadline when it may
        // pass. An exchange the operation's deadline cut says nothing about a key: one refused
        // before keeps that refusal as its reason
        boolean cutByDeadline = deadline.expired();
        for (Entry entry : open) {
          if (entry.result == null) {
            if (entry.failure == null || !cutByDeadline) {
              entry.failure = e;
            }
            if (!Failures.retryable(e)) {
              entry.result = Result.FAILED;
            }
          }
        }
      }
      if (entries.stream().anyMatch(e -> e.result == null) && !deadline.pause()) {
        for (Entry e : entries) {
          if (e.result == null) {
            e.result = Result.FAILED;
            e.failure = timedOut(e);
          }
        }
      }
    }
  }

  /**
   * What a key that ran out of time failed with: its last failure, which says why it could not
   * complete.
   */
  private KvPoolException timedOut(Entry e) {
    return e.failure != null
        ? e.failure
        : new ConnectionFailedException(
            "put of key '"
                + e.key
                + "' did not complete"
                + " within the operation timeout of "
                + config.operationTimeout().toMillis()
                + " ms");
  }

  private void round(List<Entry> open) {
    List<PutStartItem> items = new ArrayList<>(open.size());
    List<String> failedLately = storage.failed().recent();
    for (Entry e : open) {
      items.add(
          new PutStartItem(
              e.key, e.value.remaining(), e.checksum, replicas, e.putId, e.avoiding(failedLately)));
    }
    List<PutStartResult> started =
        open.stream().anyMatch(e -> e.metadata != null)
            ? putStartWithMetadata(items, open.stream().map(e -> e.metadata).toList())
            : putStart(items);
    List<Entry> writing = new ArrayList<>();
    List<ReplicaWrites.Put> puts = new ArrayList<>();
    for (int i = 0; i < open.size(); i++) {
      Entry e = open.get(i);
      PutStartResult r = started.get(i);
      switch (r.status()) {
        case OK -> {
          e.started = true;
          writing.add(e);
          puts.add(
              new ReplicaWrites.Put(
                  e.key,
                  r.generation(),
                  r.expiresAtMillis(),
                  replicas,
                  e.value,
                  e.checksum,
                  r.replicas(),
                  e.metadata));
        }
        case ALREADY_EXISTS -> e.result = e.started ? Result.STORED : Result.PRESENT;
        default -> {
          e.failure =
              Failures.fromCode(
                  r.status(), "put of key '" + e.key + "' refused by master: " + r.message(), null);
          if (!Failures.retryable(r.status())) {
            e.result = Result.FAILED;
          }
        }
      }
    }
    if (puts.isEmpty()) {
      return;
    }
    List<ReplicaWrites.Outcome> outcomes =
        ReplicaWrites.write(storage, deadline.within(config.timeout()), puts);
    List<Entry> ending = new ArrayList<>();
    List<PutEndItem> ends = new ArrayList<>();
    List<PutRef> revoke = new ArrayList<>();
    int byNodes = 0;
    Set<String> unreachable = new HashSet<>();
    for (int i = 0; i < puts.size(); i++) {
      Entry e = writing.get(i);
      ReplicaWrites.Put p = puts.get(i);
      ReplicaWrites.Outcome o = outcomes.get(i);
      o.failures()
          .forEach(
              (node, failure) -> {
                if (Failures.transientFailure(failure)) {
                  e.avoid.add(
                      node); // the master may not know yet: place the next attempt elsewhere
                }
                if (failure instanceof ConnectionFailedException) {
                  unreachable.add(node);
                }
              });
      o.receipts().keySet().forEach(storage.failed()::answered);
      if (o.committedByNodes(p)) {
        e.result = Result.STORED;
        byNodes++;
      } else if (!o.receipts().isEmpty()) {
        ending.add(e);
        ends.add(endItem(p.key(), p.generation(), o.receipts()));
      } else {
        revoke.add(new PutRef(p.key(), p.generation()));
        e.failedData(o.failures().values().iterator().next(), config.retries());
      }
    }
    unreachable.forEach(storage.failed()::failed); // once per node: its writes shared one exchange
    commits.byNodes(byNodes);
    if (!revoke.isEmpty()) {
      revokeQuietly(revoke);
    }
    if (!ends.isEmpty()) {
      List<ErrorCode> results = endPuts(ends);
      for (int i = 0; i < ends.size(); i++) {
        Entry e = ending.get(i);
        if (results.get(i) == ErrorCode.OK) {
          e.result = Result.STORED;
          commits.byPutEnd(1);
        } else {
          // NOT_FOUND: the put was lost (a new leader never heard of it, or it expired); the next
          // round starts it
          // again and finds the value stored (ALREADY_EXISTS) if a node's inventory brought it back
          // meanwhile
          e.failedData(
              new ConnectionFailedException(
                  "put of key '"
                      + e.key
                      + "' was dropped by the master before"
                      + " it completed ("
                      + results.get(i)
                      + "): a storage node holding it failed or the put outlived its"
                      + " grant"),
              config.retries());
        }
      }
    }
  }

  /**
   * PUT_END, asking again for the entries a recovering new leader cannot answer yet (RECOVERING:
   * the nodes holding the replicas have not re-registered); the other statuses are final.
   */
  private List<ErrorCode> endPuts(List<PutEndItem> items) {
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
      if (!pending.isEmpty() && !deadline.pause()) {
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
    List<PutStartResult> results =
        master.call(Opcode.PUT_START, w, r -> PutStartReply.decode(r).results(), deadline);
    MasterChannel.expectCount(results.size(), items.size(), Opcode.PUT_START);
    return results;
  }

  /**
   * PUT_START_META (protocol 2.3): PUT_START with each item's block metadata, answered as
   * PUT_START.
   */
  private List<PutStartResult> putStartWithMetadata(
      List<PutStartItem> items, List<BlockMetadata> metadata) {
    BodyWriter w = new BodyWriter(64 + items.size() * 256);
    new PutStartMetaRequest(items, metadata).encode(w);
    List<PutStartResult> results =
        master.call(Opcode.PUT_START_META, w, r -> PutStartReply.decode(r).results(), deadline);
    MasterChannel.expectCount(results.size(), items.size(), Opcode.PUT_START_META);
    return results;
  }

  private List<ErrorCode> putEnd(List<PutEndItem> items) {
    BodyWriter w = new BodyWriter(64 + items.size() * 96);
    new PutEndRequest(items).encode(w);
    List<ErrorCode> out =
        master.call(Opcode.PUT_END, w, r -> StatusList.decode(r).statuses(), deadline);
    MasterChannel.expectCount(out.size(), items.size(), Opcode.PUT_END);
    return out;
  }

  private void revokeQuietly(List<PutRef> puts) {
    try {
      BodyWriter w = new BodyWriter(32 + puts.size() * 48);
      new PutRevokeRequest(puts).encode(w);
      master.call(Opcode.PUT_REVOKE, w, r -> StatusList.decode(r).statuses(), deadline);
    } catch (KvPoolException ignored) {
      // the master revokes abandoned puts itself when their grants expire
    }
  }

  /** The entries of {@code values}, in the map's order. */
  static List<Entry> entries(
      Map<String, ByteBuffer> values, java.util.function.ToIntFunction<ByteBuffer> crc) {
    return entries(values, Map.of(), crc);
  }

  /**
   * Entries with the block metadata {@code metadata} names for their keys (none for the others).
   */
  static List<Entry> entries(
      Map<String, ByteBuffer> values,
      Map<String, BlockMetadata> metadata,
      java.util.function.ToIntFunction<ByteBuffer> crc) {
    List<Entry> out = new ArrayList<>(values.size());
    values.forEach((k, v) -> out.add(new Entry(k, v, crc.applyAsInt(v), metadata.get(k))));
    return out;
  }

  /** A batch's per-key outcome. */
  static BatchResult batchResult(List<Entry> entries) {
    List<String> stored = new ArrayList<>();
    List<String> present = new ArrayList<>();
    Map<String, KvPoolException> failed = new LinkedHashMap<>();
    for (Entry e : entries) {
      switch (e.result) {
        case STORED -> stored.add(e.key);
        case PRESENT -> present.add(e.key);
        case FAILED -> failed.put(e.key, e.failure);
      }
    }
    return new BatchResult(stored, present, failed);
  }
}
