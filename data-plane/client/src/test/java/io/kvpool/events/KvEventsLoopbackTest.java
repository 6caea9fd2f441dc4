package io.kvpool.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.client.AdminMetrics;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.master.PoolMetadata;
import io.kvpool.master.ResidentObject;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import io.kvpool.storage.disk.DiskTier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * A real master publishing KV events, real storage nodes and a real client on loopback, followed by
 * a real JeroMQ SUB/DEALER subscriber ({@link EventFollower}) that rebuilds the pool's key set from
 * the events alone: after puts (with and without block metadata), removes, evictions, a disconnect,
 * a gap past the replay buffer, a queue overflow and a master failover, it holds exactly the
 * master's readable objects.
 */
class KvEventsLoopbackTest {
  private static final String POOL = "events-pool";
  private static final String MODEL = "m1";
  private static final String TOPIC = "kv@pool:" + POOL + "@" + MODEL;
  private static final long NODE_MEMORY = 4L << 20;

  private Master master;
  private final List<StorageNode> nodes = new ArrayList<>();
  private final List<EventFollower> followers = new ArrayList<>();
  private KvPoolClient client;

  @AfterEach
  void stop() {
    followers.forEach(EventFollower::close);
    if (client != null) {
      client.close();
    }
    nodes.forEach(StorageNode::close);
    if (master != null) {
      master.close();
    }
  }

  private static MasterConfig config() {
    return MasterConfig.defaults(POOL)
        .withTtls(Duration.ofSeconds(3), Duration.ofMillis(300))
        .withRecoveryQuietPeriod(Duration.ofMillis(500));
  }

  private static KvEventsConfig events() {
    return KvEventsConfig.of(POOL, "127.0.0.1", 0, 0, "", MODEL);
  }

  private void startPool(KvEventsConfig events) throws Exception {
    master =
        new Master(MasterSettings.local(config(), "127.0.0.1", 0, 0).withEvents(events)).start();
    for (int i = 0; i < 2; i++) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(
                          master.rpcEndpoint(), "node-" + i, "127.0.0.1", NODE_MEMORY, 1)
                      .withHeartbeat(Duration.ofMillis(100)))
              .start(Duration.ofSeconds(10)));
    }
    connectWriter();
  }

  private void connectWriter() throws IOException {
    client =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(master.rpcEndpoint())
                .clientId("writer")
                .timeout(Duration.ofSeconds(10))
                .build());
  }

  private KvEventPublisher publisher() {
    return master.events().orElseThrow();
  }

  private EventFollower follow() {
    EventFollower f = new EventFollower(publisher().pubPort(), publisher().replayPort(), TOPIC);
    followers.add(f);
    return f;
  }

  private EventFollower resume(EventFollower was) {
    EventFollower f =
        new EventFollower(
            publisher().pubPort(), publisher().replayPort(), TOPIC, was.lastSeq, was.hashes);
    followers.add(f);
    return f;
  }

  /**
   * What the events name the master's readable objects by: each block hash, or the key's bytes
   * without metadata.
   */
  private static Set<String> identities(List<ResidentObject> residents) {
    Set<String> out = new HashSet<>();
    for (ResidentObject o : residents) {
      if (o.metadata() == null) {
        out.add(EventFollower.hex(o.key().getBytes(StandardCharsets.UTF_8)));
      } else {
        o.metadata().blockHashes().forEach(h -> out.add(EventFollower.hex(h)));
      }
    }
    return out;
  }

  /**
   * Follows the events until the follower holds exactly the master's readable objects (within 30
   * s).
   */
  private void converge(EventFollower f) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    Set<String> expected = Set.of();
    while (System.currentTimeMillis() < deadline) {
      PoolMetadata m = master.metadata();
      expected = m == null ? Set.of() : identities(m.residents());
      f.followTo(publisher().lastSequence(), 30_000);
      if (f.hashes.equals(expected)) {
        return;
      }
      Thread.sleep(20); // the publisher thread has not drained its queue yet: look again
    }
    Set<String> missing = new HashSet<>(expected);
    missing.removeAll(f.hashes);
    Set<String> extra = new HashSet<>(f.hashes);
    extra.removeAll(expected);
    throw new AssertionError(
        "follower's key set differs from the master's after 30 s: missing "
            + missing
            + ", extra "
            + extra
            + "; follower at "
            + f.lastSeq
            + ", publisher at "
            + publisher().lastSequence()
            + ", replays "
            + f.replays
            + ", gaps "
            + f.gaps
            + ", clears "
            + f.clears);
  }

  private static ByteBuffer value(int size, int seed) {
    ByteBuffer b = ByteBuffer.allocateDirect(size);
    for (int i = 0; i < size; i++) {
      b.put((byte) (i * 31 + seed));
    }
    return b.flip();
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (seed + i);
    }
    return b;
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  @Test
  void aFollowerHoldsThePoolsKeySetThroughPutsRemovesEvictionsAndAReconnect() throws Exception {
    startPool(events());
    EventFollower f = follow();
    assertThat(f.clears).as("a new subscriber's replay from 0 is a full announcement").isEqualTo(1);

    BlockMetadata meta =
        new BlockMetadata(
            false,
            List.of(bytes(32, 1), bytes(32, 2)),
            bytes(32, 3),
            IntStream.range(100, 132).toArray(),
            16,
            7);
    BlockMetadata intMeta =
        new BlockMetadata(true, List.of(longBytes(-42)), new byte[0], new int[] {5}, 1, 0);
    client.put("meta/1", value(1000, 1), 2, meta);
    client.putBatch(Map.of("int/1", value(1000, 2)), 1, Map.of("int/1", intMeta));
    Set<String> put = new HashSet<>(Set.of("meta/1", "int/1"));
    for (int i = 0; i < 10; i++) {
      client.put("plain/" + i, value(2000, i), 1);
      put.add("plain/" + i);
    }
    awaitResidents(put); // a put returns before the master applied its nodes' COMMITs
    converge(f);

    EventFollower.Stored withMeta =
        f.stored.stream().filter(s -> s.hashes().size() == 2).findFirst().orElseThrow();
    assertThat(withMeta.hashes())
        .containsExactly(EventFollower.hex(bytes(32, 1)), EventFollower.hex(bytes(32, 2)));
    assertThat(withMeta.parent()).isEqualTo(EventFollower.hex(bytes(32, 3)));
    assertThat(withMeta.tokens()).hasSize(32).startsWith(100L, 101L).endsWith(131L);
    assertThat(withMeta.blockSize()).isEqualTo(16);
    assertThat(withMeta.loraId()).isEqualTo(7L);
    assertThat(withMeta.medium()).isEqualTo("pool:" + POOL);
    EventFollower.Stored withInt =
        f.stored.stream()
            .filter(s -> s.hashes().equals(List.of(EventFollower.hex(longBytes(-42)))))
            .findFirst()
            .orElseThrow();
    assertThat(withInt.parent()).isNull();
    assertThat(withInt.loraId()).isNull();
    EventFollower.Stored plain =
        f.stored.stream()
            .filter(
                s ->
                    s.hashes()
                        .equals(
                            List.of(EventFollower.hex("plain/3".getBytes(StandardCharsets.UTF_8)))))
            .findFirst()
            .orElseThrow();
    assertThat(plain.tokens()).isEmpty();
    assertThat(plain.blockSize()).isZero();

    assertThat(client.remove("plain/0")).isTrue();
    assertThat(client.remove("meta/1")).isTrue();
    converge(f);
    assertThat(f.removedHashes)
        .contains(
            EventFollower.hex("plain/0".getBytes(StandardCharsets.UTF_8)),
            EventFollower.hex(bytes(32, 1)));

    // more than the pool holds: the master evicts, and says so
    int removedBefore = f.removedHashes.size();
    for (int i = 0; i < 40; i++) {
      client.put("big/" + i, value(256 << 10, i), 1);
    }
    converge(f);
    assertThat(client.stats().objects()).isLessThan(40 + 9 + 1);
    assertThat(f.removedHashes.size()).as("evictions are announced").isGreaterThan(removedBefore);

    // the subscriber goes away; what it missed is replayed from the buffer (no full announcement)
    f.close();
    client.remove("plain/1");
    client.put("later/1", value(100, 9), 1);
    EventFollower back = resume(f);
    converge(back);
    assertThat(back.clears).isZero();
    assertThat(back.hashes)
        .contains(EventFollower.hex("later/1".getBytes(StandardCharsets.UTF_8)))
        .doesNotContain(EventFollower.hex("plain/1".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aBlockTheKeysOfSeveralRanksNameIsAnnouncedOnceAndHeldUntilTheLastIsRemoved()
      throws Exception {
    startPool(events());
    EventFollower f = follow();
    // the four tensor-parallel ranks of one engine put their shares of the same two blocks
    BlockMetadata blocks =
        new BlockMetadata(
            false,
            List.of(bytes(32, 40), bytes(32, 41)),
            new byte[0],
            IntStream.range(0, 32).toArray(),
            16,
            0);
    Set<String> keys = new HashSet<>();
    for (int rank = 0; rank < 4; rank++) {
      client.put("tp" + rank + "/blk", value(1000, rank), 1, blocks);
      keys.add("tp" + rank + "/blk");
    }
    awaitResidents(keys);
    converge(f);
    String first = EventFollower.hex(bytes(32, 40));
    String second = EventFollower.hex(bytes(32, 41));
    assertThat(f.stored.stream().filter(s -> s.hashes().contains(first)))
        .as("BlockStored events naming the block: the first rank's")
        .hasSize(1);

    for (int rank = 0; rank < 3; rank++) {
      assertThat(client.remove("tp" + rank + "/blk")).isTrue();
    }
    converge(f);
    assertThat(f.hashes).as("the last rank still holds both blocks").contains(first, second);
    assertThat(f.removedHashes).doesNotContain(first, second);

    assertThat(client.remove("tp3/blk")).isTrue();
    converge(f);
    assertThat(f.hashes).doesNotContain(first, second);
    assertThat(f.removedHashes).containsOnlyOnce(first, second);
  }

  @Test
  void aGapPastTheReplayBufferIsHealedByAFullAnnouncement() throws Exception {
    startPool(events().withReplayBatches(4));
    EventFollower f = follow();
    for (int i = 0; i < 5; i++) {
      client.put("k/" + i, value(100, i), 1);
    }
    converge(f);
    f.close();
    client.remove("k/0");
    long target = f.lastSeq + 8;
    for (int i = 5; publisher().lastSequence() < target; i++) {
      client.put(
          "k/" + i,
          value(100, i),
          1); // one batch or more each: the buffer's 4 no longer reach back
    }
    EventFollower back = resume(f);
    converge(back);
    assertThat(back.clears).as("the gap answer is AllBlocksCleared + every object").isEqualTo(1);
    assertThat(back.hashes)
        .doesNotContain(EventFollower.hex("k/0".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void changesTheQueueHasNoRoomForAreHealedByAFullAnnouncement() throws Exception {
    startPool(events().withQueue(1));
    EventFollower f = follow();
    Map<String, ByteBuffer> values = new LinkedHashMap<>();
    for (int i = 0; i < 20; i++) {
      values.put("q/" + i, value(100, i));
    }
    client.putBatch(values, 1);
    converge(f);
    // every put visible at the master (a pending one would refuse its REMOVE below and be
    // announced later)
    PoolMetadata held = master.metadata();
    long deadline = System.currentTimeMillis() + 30_000;
    while (held.residents().size() < values.size()) {
      assertThat(System.currentTimeMillis())
          .as("all 20 puts resident at the master: %s", identities(held.residents()))
          .isLessThan(deadline);
      Thread.sleep(20);
    }
    converge(f);

    // stall the publisher thread deterministically: a replay request with a gap makes it take a
    // snapshot, which
    // waits for the metadata lock this test holds while it removes objects (reentrant)
    PoolMetadata m = master.metadata();
    try (ZContext zmq = new ZContext(1)) {
      synchronized (m) {
        // asked again on a new DEALER when the publisher did not take the request within 5 s
        // (docs/events.md, rule 6: a new JeroMQ DEALER's first request may go unanswered)
        boolean blocked = false;
        for (int attempt = 0; attempt < 6 && !blocked; attempt++) {
          ZMQ.Socket dealer = zmq.createSocket(SocketType.DEALER);
          dealer.setIdentity(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
          dealer.connect("tcp://127.0.0.1:" + publisher().replayPort());
          dealer.sendMore(new byte[0]);
          dealer.send(longBytes(0), 0);
          blocked = blocked("kv-event-publisher", 5_000);
        }
        assertThat(blocked).as("kv-event-publisher waited for the metadata lock").isTrue();
        assertThat(m.remove(List.of("q/0", "q/1", "q/2", "q/3", "q/4")).statuses())
            .as("REMOVE statuses of q/0..q/4")
            .containsOnly(ErrorCode.OK)
            .hasSize(5);
      }
    }
    converge(f);
    assertThat(f.clears)
        .as("the overflow is healed by a full announcement")
        .isGreaterThanOrEqualTo(2);
    assertThat(f.hashes).doesNotContain(EventFollower.hex("q/4".getBytes(StandardCharsets.UTF_8)));
    assertThat(metric("kvpool_events_dropped_total")).isGreaterThan(0);
  }

  @Test
  void hostileReplayRequestsAreIgnoredAndAStalledSubscriberHoldsNothingUp() throws Exception {
    startPool(events());
    try (ZContext zmq = new ZContext(1)) {
      // a subscriber that never reads, with room for 10 messages: ZMQ drops what does not fit, for
      // it alone
      ZMQ.Socket stalled = zmq.createSocket(SocketType.SUB);
      stalled.setRcvHWM(10);
      stalled.subscribe(new byte[0]);
      stalled.connect("tcp://127.0.0.1:" + publisher().pubPort());
      ZMQ.Socket hostile = zmq.createSocket(SocketType.DEALER);
      hostile.setIdentity(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII));
      hostile.connect("tcp://127.0.0.1:" + publisher().replayPort());
      hostile.send(longBytes(0), 0); // no empty delimiter
      hostile.sendMore(new byte[0]);
      hostile.send(new byte[7], 0); // a short sequence
      hostile.sendMore(new byte[0]);
      hostile.send(new byte[4096], 0); // over the request limit: ZMQ drops it
      EventFollower f = follow();
      for (int i = 0; i < 200; i++) {
        client.put("s/" + i, value(100, i), 1);
      }
      converge(f);
      assertThat(metric("kvpool_events_replay_requests_total{outcome=\"invalid\"}"))
          .isGreaterThanOrEqualTo(2);
      assertThat(metric("kvpool_events_batches_total")).isGreaterThan(1);
    }
  }

  private double metric(String name) throws Exception {
    String exposition = AdminMetrics.scrape(master.adminEndpoint());
    return AdminMetrics.value(exposition, name)
        .orElseThrow(() -> new AssertionError(name + " not in " + exposition));
  }

  /** Whether the thread named {@code threadName} waits for a monitor within {@code millis}. */
  private static boolean blocked(String threadName, long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (System.currentTimeMillis() < deadline) {
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().equals(threadName) && t.getState() == Thread.State.BLOCKED) {
          return true;
        }
      }
      Thread.sleep(5);
    }
    return false;
  }

  /** The BlockStored a subscriber must see for an object put with {@code m}, field by field. */
  private static EventFollower.Stored storedFor(BlockMetadata m) {
    return storedFor(m, "pool:" + POOL);
  }

  private static EventFollower.Stored storedFor(BlockMetadata m, String medium) {
    return new EventFollower.Stored(
        m.blockHashes().stream().map(EventFollower::hex).toList(),
        m.parentBlockHash().length == 0 ? null : EventFollower.hex(m.parentBlockHash()),
        IntStream.of(m.tokenIds()).mapToObj(t -> (long) t).toList(),
        m.blockSize(),
        m.loraId() == 0 ? null : (long) m.loraId(),
        medium);
  }

  private static BlockMetadata metadata(int seed) {
    return new BlockMetadata(
        false,
        List.of(bytes(32, seed), bytes(32, seed + 1)),
        bytes(32, seed + 2),
        IntStream.range(seed * 100, seed * 100 + 48).toArray(),
        16,
        seed % 3);
  }

  /**
   * Asserts that the announcement {@code f} followed names each object of {@code put} by its block
   * metadata, byte for byte, and none of them by its key.
   */
  private static void announcedWithMetadata(EventFollower f, Map<String, BlockMetadata> put) {
    announcedWithMetadata(f, put, "pool:" + POOL);
  }

  private static void announcedWithMetadata(
      EventFollower f, Map<String, BlockMetadata> put, String medium) {
    put.forEach(
        (key, m) ->
            assertThat(f.stored)
                .as("the announcement of %s, after %d clears", key, f.clears)
                .contains(storedFor(m, medium))
                .noneMatch(
                    s ->
                        s.hashes()
                            .contains(EventFollower.hex(key.getBytes(StandardCharsets.UTF_8)))));
  }

  /**
   * Waits until the master holds each of {@code keys} as readable (a put returns before the master
   * applied its nodes' COMMITs; a new leader adopts a node's objects when its inventory arrives).
   */
  private void awaitResidents(Set<String> keys) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    Set<String> missing = new HashSet<>(keys);
    while (System.currentTimeMillis() < deadline) {
      PoolMetadata m = master.metadata();
      if (m != null) {
        Set<String> now = new HashSet<>(keys);
        m.residents().forEach(o -> now.remove(o.key()));
        if (now.isEmpty()) {
          return;
        }
        missing = now;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not readable at the master after 30 s: " + missing);
  }

  @Test
  void aNewLeaderContinuesTheSequenceAndAnnouncesWhatItRecovered() throws Exception {
    startPool(events());
    EventFollower f = follow();
    for (int i = 0; i < 8; i++) {
      client.put("f/" + i, value(1000, i), 2);
    }
    client.remove("f/7");
    // block metadata reaches the nodes with the WRITEs (a single put, and a batch whose writes go
    // to each node as one WRITE_BATCH), so the next leader learns it from their inventories
    Map<String, BlockMetadata> withMetadata = new LinkedHashMap<>();
    withMetadata.put("fm/single", metadata(1));
    withMetadata.put(
        "fm/int",
        new BlockMetadata(
            true, List.of(longBytes(-42), longBytes(7)), longBytes(1), new int[] {5}, 1, 0));
    client.put("fm/single", value(3000, 1), 2, withMetadata.get("fm/single"));
    client.put("fm/int", value(3000, 2), 2, withMetadata.get("fm/int"));
    Map<String, ByteBuffer> batch = new LinkedHashMap<>();
    for (int i = 0; i < 3; i++) {
      withMetadata.put("fm/batch/" + i, metadata(10 + i));
      batch.put("fm/batch/" + i, value(2000, 10 + i));
    }
    assertThat(client.putBatch(batch, 2, withMetadata).failures()).isEmpty();
    awaitResidents(withMetadata.keySet());
    converge(f);
    announcedWithMetadata(f, withMetadata);
    Set<String> before = Set.copyOf(f.hashes);
    long lastOfOldLeader = publisher().lastSequence();
    int rpcPort = master.rpcEndpoint().port();
    master.close();

    master =
        new Master(MasterSettings.local(config(), "127.0.0.1", rpcPort, 0).withEvents(events()))
            .start();
    awaitServing();
    assertThat(publisher().lastSequence()).isGreaterThan(lastOfOldLeader);
    EventFollower next = resume(f);
    awaitResidents(withMetadata.keySet());
    converge(next);
    assertThat(next.clears).as("the new leader's answer to a sequence it never had").isEqualTo(1);
    // converge: exactly the new leader's objects; none lost. An object removed less than a
    // heartbeat before the
    // old leader went may come back with the replica its node had not released yet (PROTOCOL.md,
    // issue 28)
    assertThat(next.hashes).containsAll(before);
    announcedWithMetadata(next, withMetadata);
  }

  /**
   * A subscriber that stays connected through a failover (the same SUB and DEALER sockets, the new
   * leader bound to the old one's ports, as a Service gives a subscriber in a cluster) and follows
   * only the rules of docs/events.md: it sees the new leader's sequence as a gap, replays, ends
   * with exactly the pool's key set, and its SUB socket receives the new leader's batches live
   * again (ZMQ reconnects it), not only by the replay after a quiet spell.
   */
  @Test
  void aSubscriberStaysConnectedThroughAFailoverAndReceivesTheNewLeaderLive() throws Exception {
    int[] ports = twoFreePorts();
    KvEventsConfig fixedPorts = KvEventsConfig.of(POOL, "127.0.0.1", ports[0], ports[1], "", MODEL);
    startPool(fixedPorts);
    EventFollower f = follow();
    Set<String> keys = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      client.put("k/" + i, value(1000, i), 2);
      keys.add("k/" + i);
    }
    converge(f);
    assertThat(f.lastLive).as("the old leader's batches arrive live").isPositive();
    long lastOfOldLeader = publisher().lastSequence();
    int clearsBefore = f.clears;

    int rpcPort = master.rpcEndpoint().port();
    master.close();
    master =
        new Master(MasterSettings.local(config(), "127.0.0.1", rpcPort, 0).withEvents(fixedPorts))
            .start();
    awaitServing();
    awaitResidents(keys);
    for (int i = 0; i < 5; i++) {
      assertThat(client.remove("k/" + i)).isTrue();
      keys.remove("k/" + i);
    }
    // one put at a time until the SUB socket, reconnected by ZMQ, delivers one of the new leader's
    // batches live (each put's batch either arrives live or is replayed after a quiet spell)
    long deadline = System.currentTimeMillis() + 60_000;
    for (int i = 0; f.lastLive <= lastOfOldLeader; i++) {
      assertThat(System.currentTimeMillis())
          .as(
              "no batch of the new leader (from %d) arrived live within 60 s; last live %d,"
                  + " follower at %d, replays %d, gaps %d",
              lastOfOldLeader + 1, f.lastLive, f.lastSeq, f.replays, f.gaps)
          .isLessThan(deadline);
      client.put("after/" + i, value(500, i), 2);
      keys.add("after/" + i);
      f.followTo(publisher().lastSequence(), 30_000);
    }
    awaitResidents(keys); // a put returns before the master applied its nodes' COMMITs
    converge(f);
    assertThat(f.lastSeq).isGreaterThan(lastOfOldLeader);
    assertThat(f.clears)
        .as("the new leader's full announcement, replayed on the gap")
        .isGreaterThan(clearsBefore);
    Set<String> expected = new HashSet<>();
    keys.forEach(k -> expected.add(EventFollower.hex(k.getBytes(StandardCharsets.UTF_8))));
    assertThat(f.hashes).as("exactly the pool's keys").isEqualTo(expected);
  }

  /**
   * Two free ports, told apart by holding both probes open at once (one probe after another may get
   * the same).
   */
  private static int[] twoFreePorts() throws java.io.IOException {
    try (java.net.ServerSocket a = new java.net.ServerSocket(0);
        java.net.ServerSocket b = new java.net.ServerSocket(0)) {
      return new int[] {a.getLocalPort(), b.getLocalPort()};
    }
  }

  private StorageNode startNode(String id, Path memoryDir) throws Exception {
    StorageConfig c =
        StorageConfig.local(master.rpcEndpoint(), id, "127.0.0.1", NODE_MEMORY, 1)
            .withHeartbeat(Duration.ofMillis(100));
    StorageNode n =
        new StorageNode(memoryDir == null ? c : c.withMemoryDir(memoryDir))
            .start(Duration.ofSeconds(10));
    nodes.add(n);
    return n;
  }

  private static final long VALUE = 256 << 10;
  private static final String MEMORY_MEDIUM = "pool:" + POOL;
  private static final String DISK_MEDIUM = MEMORY_MEDIUM + ":disk";

  /** A master publishing events, {@code nodes} storage nodes with disk tiers, and the writer. */
  private void startTieredPool(Path disks, int nodes) throws Exception {
    master =
        new Master(MasterSettings.local(config(), "127.0.0.1", 0, 0).withEvents(events())).start();
    for (int i = 0; i < nodes; i++) {
      startTieredNode("node-" + i, disks.resolve("node-" + i));
    }
    connectWriter();
  }

  private void startTieredNode(String id, Path disk) throws Exception {
    nodes.add(
        new StorageNode(
                StorageConfig.local(master.rpcEndpoint(), id, "127.0.0.1", NODE_MEMORY, 1)
                    .withHeartbeat(Duration.ofMillis(100))
                    .withDisk(new DiskTier.Settings(disk, 64L << 20, 1L << 20, 0.9, 0.8)))
            .start(Duration.ofSeconds(10)));
  }

  private Map<String, Long> tierObjects() {
    Map<String, Long> out = new LinkedHashMap<>();
    master.status().cacheSignals().tiers().forEach(t -> out.put(t.name(), t.objects()));
    return out;
  }

  private Set<String> keysOnDisk() {
    return keys(true);
  }

  private Set<String> keysInMemory() {
    return keys(false);
  }

  private Set<String> keys(boolean onDisk) {
    Set<String> out = new HashSet<>();
    for (ResidentObject o : master.metadata().residents()) {
      if (o.onDisk() == onDisk) {
        out.add(o.key());
      }
    }
    return out;
  }

  /**
   * Follows the events until the follower's sets per medium are the master's objects on each, and
   * its plain set all of them (within 30 s).
   */
  private void convergeByMedium(EventFollower f) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    Map<String, Set<String>> expected = Map.of();
    Map<String, Set<String>> seen = Map.of();
    Set<String> all = Set.of();
    while (System.currentTimeMillis() < deadline) {
      List<ResidentObject> residents = master.metadata().residents();
      all = identities(residents);
      expected =
          Map.of(
              MEMORY_MEDIUM,
              identities(residents.stream().filter(o -> !o.onDisk()).toList()),
              DISK_MEDIUM,
              identities(residents.stream().filter(ResidentObject::onDisk).toList()));
      f.followTo(publisher().lastSequence(), 30_000);
      seen =
          Map.of(
              MEMORY_MEDIUM, f.byMedium.getOrDefault(MEMORY_MEDIUM, Set.of()),
              DISK_MEDIUM, f.byMedium.getOrDefault(DISK_MEDIUM, Set.of()));
      if (seen.equals(expected) && f.hashes.equals(all)) {
        return;
      }
      Thread.sleep(20); // the publisher thread has not drained its queue yet: look again
    }
    throw new AssertionError(
        "follower's sets per medium differ from the master's after 30 s: expected "
            + sizes(expected)
            + ", follower "
            + sizes(seen)
            + ", plain set "
            + f.hashes.size()
            + " of "
            + all.size()
            + "; follower at "
            + f.lastSeq
            + ", publisher at "
            + publisher().lastSequence());
  }

  private static Map<String, Integer> sizes(Map<String, Set<String>> byMedium) {
    Map<String, Integer> out = new LinkedHashMap<>();
    byMedium.forEach((medium, hashes) -> out.put(medium, hashes.size()));
    return out;
  }

  /** Closes the leader and starts another master on its port; waits until it serves. */
  private void replaceMaster() throws Exception {
    int rpcPort = master.rpcEndpoint().port();
    master.close();
    master =
        new Master(MasterSettings.local(config(), "127.0.0.1", rpcPort, 0).withEvents(events()))
            .start();
    awaitServing();
  }

  private static void awaitObjects(StorageNode n, long objects) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline && n.status().objects() != objects) {
      Thread.sleep(20);
    }
    assertThat(n.status().objects()).as("replicas on " + n.nodeId()).isEqualTo(objects);
  }

  /**
   * Objects evicted to the nodes' disk tiers are announced on the disk medium (removed from the
   * memory medium first), and back on the memory medium when a repair copies a disk-only object
   * into another node's memory: after each phase a subscriber that keeps a set per medium holds
   * exactly the master's objects on each, and one that ignores the medium holds them all.
   */
  @Test
  void objectsMovingToDiskAndBackAreAnnouncedOnTheirMedium(@TempDir Path disks) throws Exception {
    startTieredPool(disks, 3);
    EventFollower f = follow();
    int count = 3 * (int) (3 * NODE_MEMORY / (2 * VALUE)); // three times what memory holds at R=2
    for (int i = 0; i < count; i++) {
      client.put("tiered/" + i, value((int) VALUE, i), 2);
    }
    convergeByMedium(f);
    Set<String> onDisk = keysOnDisk();
    assertThat(onDisk).as("objects evicted to disk").isNotEmpty();
    assertThat(f.byMedium.get(DISK_MEDIUM)).as("announced on the disk medium").isNotEmpty();
    assertThat(tierObjects())
        .as("objects per tier in /status")
        .containsExactly(
            Map.entry("memory", (long) (count - onDisk.size())),
            Map.entry("disk", (long) onDisk.size()));

    nodes
        .get(0)
        .close(); // dead after the node TTL: its objects are copied to another node's memory
    long deadline = System.currentTimeMillis() + 60_000;
    Set<String> backInMemory = new HashSet<>();
    while (System.currentTimeMillis() < deadline && backInMemory.isEmpty()) {
      backInMemory.addAll(onDisk);
      backInMemory.retainAll(keysInMemory());
      Thread.sleep(50);
    }
    assertThat(backInMemory).as("disk-only objects a repair copied into memory").isNotEmpty();
    convergeByMedium(f);
    for (int i = 0; i < count; i++) {
      assertThat(client.get("tiered/" + i)).as("tiered/" + i).isEqualTo(value((int) VALUE, i));
    }
  }

  /**
   * Starts a tiered pool of one node, puts {@code key} with block metadata, then three times the
   * node's memory of other values, so that it moves to the disk tier: its metadata.
   */
  private BlockMetadata putThenMoveToDisk(Path disks, String key, int seed) throws Exception {
    startTieredPool(disks, 1);
    BlockMetadata m = metadata(seed);
    client.put(key, value((int) VALUE, seed), 1, m);
    for (int i = 0; i < 3 * NODE_MEMORY / VALUE; i++) {
      client.put("filler/" + i, value((int) VALUE, i), 1);
    }
    assertThat(keysOnDisk()).as("moved to the disk tier").contains(key);
    return m;
  }

  /**
   * An object put with block metadata and then moved to a node's disk tier is announced with that
   * metadata, on the disk medium, by a leader that never saw its put: the node keeps the metadata
   * of what it spilled and registers it with the record.
   */
  @Test
  void aDiskRecordKeepsTheBlockMetadataForTheNextLeader(@TempDir Path disks) throws Exception {
    BlockMetadata m = putThenMoveToDisk(disks, "spilled/meta", 11);
    replaceMaster(); // a leader that never saw the put
    awaitResidents(Set.of("spilled/meta"));
    EventFollower f = follow();
    convergeByMedium(f);
    announcedWithMetadata(f, Map.of("spilled/meta", m), DISK_MEDIUM);
  }

  /**
   * A node restarted on its disk tier rescans the block metadata of its records from their files'
   * side files: a leader that never saw the put announces the record with it, not under its key.
   */
  @Test
  void aRestartedNodeKeepsTheBlockMetadataOfItsDiskRecordsForTheNextLeader(@TempDir Path disks)
      throws Exception {
    BlockMetadata m = putThenMoveToDisk(disks, "rescanned/meta", 13);
    nodes.remove(0).close();
    replaceMaster(); // a leader that never saw the put
    startTieredNode("node-0", disks.resolve("node-0")); // rescans its tier: no warm restart
    awaitResidents(Set.of("rescanned/meta"));
    assertThat(client.get("rescanned/meta")).isEqualTo(value((int) VALUE, 13));
    EventFollower f = follow();
    convergeByMedium(f);
    announcedWithMetadata(f, Map.of("rescanned/meta", m), DISK_MEDIUM);
  }

  @Test
  void aRepairedCopyKeepsTheBlockMetadataForTheNextLeader() throws Exception {
    startPool(events());
    BlockMetadata m = metadata(3);
    client.put("repaired", value(5000, 3), 2, m);
    StorageNode spare = startNode("node-2", null);
    nodes.get(0).close(); // dead after the node TTL: the master copies its replica to the spare
    awaitObjects(spare, 1);
    nodes.get(1).close(); // the copy is the only replica left
    replaceMaster();
    awaitResidents(Set.of("repaired"));
    EventFollower f = follow();
    converge(f);
    announcedWithMetadata(f, Map.of("repaired", m));
  }

  @Test
  void aWarmRestartedNodeKeepsTheBlockMetadataForTheNextLeader(@TempDir Path memoryDir)
      throws Exception {
    master =
        new Master(MasterSettings.local(config(), "127.0.0.1", 0, 0).withEvents(events())).start();
    StorageNode warm = startNode("warm", memoryDir);
    connectWriter();
    BlockMetadata m = metadata(5);
    client.put("warm/meta", value(5000, 5), 1, m);
    client.put("warm/plain", value(5000, 6), 1);
    warm.close(); // a clean stop: the inventory and its block metadata stay next to the files
    assertThat(memoryDir.resolve("warm").resolve("blockmeta.kvm")).exists();
    replaceMaster(); // a leader that never saw the puts
    StorageNode again = startNode("warm", memoryDir);
    assertThat(again.warmStart().objects()).isEqualTo(2);
    awaitResidents(Set.of("warm/meta", "warm/plain"));
    EventFollower f = follow();
    converge(f);
    announcedWithMetadata(f, Map.of("warm/meta", m));
    assertThat(f.hashes).contains(EventFollower.hex("warm/plain".getBytes(StandardCharsets.UTF_8)));
  }

  private void awaitServing() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline && !"SERVING".equals(master.status().state())) {
      Thread.sleep(20);
    }
    assertThat(master.status().state()).isEqualTo("SERVING");
  }

  @Test
  void metadataOverALimitIsRefusedWithTheLimitNamed() throws Exception {
    startPool(events());
    List<byte[]> tooMany = new ArrayList<>();
    for (int i = 0; i < BlockMetadata.MAX_BLOCK_HASHES + 1; i++) {
      tooMany.add(bytes(8, i));
    }
    BlockMetadata big = new BlockMetadata(false, tooMany, new byte[0], new int[0], 16, 0);
    assertThatThrownBy(() -> client.put("over", value(10, 1), 1, big))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("65 block hashes");
    BlockMetadata shortInt =
        new BlockMetadata(true, List.of(bytes(4, 1)), new byte[0], new int[0], 16, 0);
    assertThatThrownBy(() -> client.put("over", value(10, 1), 1, shortInt))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exactly 8 bytes");
    // the master enforces the limits too, whatever a client checked: its answer names the limit
    List<io.kvpool.protocol.PutStartResult> results =
        master
            .metadata()
            .putStart(
                List.of(new io.kvpool.protocol.PutStartItem("over", 10, 0, 1, 1L, List.of())),
                java.util.Collections.singletonList(
                    new BlockMetadata(
                        false,
                        List.of(bytes(8, 1)),
                        new byte[0],
                        new int[BlockMetadata.MAX_TOKEN_IDS + 1],
                        16,
                        0)),
                3);
    assertThat(results.get(0).status()).isEqualTo(io.kvpool.protocol.ErrorCode.LIMIT_EXCEEDED);
    assertThat(results.get(0).message()).contains("4097 token ids");
    assertThat(client.exists("over")).isFalse();
  }
}
