package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.HostPort;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.storage.StorageConfig;
import io.kvpool.storage.StorageNode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client's location cache, a get straight to a storage node with a replica list it already
 * holds, against a real master and storage nodes: it saves the master round trip, and it never
 * returns what a stale list points at — after a remove, an eviction, a new object of the key in the
 * old range, or a master restart that gave the nodes new keys — even when the client believes the
 * lease lasts far longer than it does; concurrent writers and cached readers never see a removed
 * value.
 */
class LocationCacheTest {
  private static final Duration LEASE = Duration.ofSeconds(1);
  private static final long NODE_MEMORY = 16L << 20;

  private Master master;
  private int masterPort;
  private final List<StorageNode> nodes = new ArrayList<>();
  private final List<KvPoolClient> clients = new ArrayList<>();
  private KvPoolClient writer;

  @BeforeEach
  void startPool() throws Exception {
    master = startMaster(0);
    masterPort = master.rpcEndpoint().port();
    for (int i = 0; i < 3; i++) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(
                          master.rpcEndpoint(), "node-" + i, "127.0.0.1", NODE_MEMORY, 2)
                      .withHeartbeat(Duration.ofMillis(100)))
              .start(Duration.ofSeconds(10)));
    }
    awaitServing();
    writer = client("writer", LEASE);
  }

  /** Until the (new) leader has recovered its index: misses are final from then on. */
  private void awaitServing() throws InterruptedException {
    long deadline = System.currentTimeMillis() + 15_000;
    while (!master.status().state().equals("SERVING") && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(master.status().state()).isEqualTo("SERVING");
  }

  private static Master startMaster(int port) throws Exception {
    MasterConfig config =
        MasterConfig.defaults("cache-pool")
            .withTtls(Duration.ofSeconds(3), LEASE)
            .withRecoveryQuietPeriod(Duration.ofMillis(500));
    return new Master(MasterSettings.local(config, "127.0.0.1", port, 0)).start();
  }

  /** A client that believes the pool's read lease lasts {@code believedLease}. */
  private KvPoolClient client(String id, Duration believedLease) throws Exception {
    KvPoolClient c =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(new HostPort("127.0.0.1", masterPort))
                .clientId(id)
                .timeout(Duration.ofSeconds(10))
                .leaseTtl(believedLease)
                .build());
    clients.add(c);
    return c;
  }

  @AfterEach
  void stopPool() {
    clients.forEach(KvPoolClient::close);
    nodes.forEach(StorageNode::close);
    master.close();
  }

  private static ByteBuffer value(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return ByteBuffer.allocateDirect(size).put(bytes).flip();
  }

  private long masterLookups() {
    return master.status().counters().gets();
  }

  /** Sleeps past the pool's read lease: the point of these tests is what happens after it ended. */
  private static void outliveTheLease() throws InterruptedException {
    Thread.sleep(LEASE.toMillis() + 300);
  }

  @Test
  void aCachedReplicaListSkipsTheMasterUntilItsLeaseRunsOut() throws Exception {
    ByteBuffer v = value(1 << 20, 1);
    writer.put("hot", v, 2);
    KvPoolClient reader = client("reader", LEASE); // reused for 80% of it
    long before = masterLookups();
    for (int i = 0; i < 6; i++) {
      assertThat(reader.get("hot")).isEqualTo(v);
    }
    assertThat(masterLookups() - before)
        .as("one lookup, then five gets straight to a node")
        .isEqualTo(1);
    assertThat(reader.locationCacheStats()).isEqualTo(new LocationCacheStats(5, 1, 0));
    ByteBuffer dst = ByteBuffer.allocateDirect(2 << 20);
    assertThat(reader.get("hot", dst)).isEqualTo(1 << 20);
    assertThat(dst.flip()).isEqualTo(v);

    KvPoolClient off =
        KvPoolClient.connect(
            ClientConfig.builder()
                .master(new HostPort("127.0.0.1", masterPort))
                .locationCacheEntries(0)
                .build());
    clients.add(off);
    before = masterLookups();
    for (int i = 0; i < 3; i++) {
      assertThat(off.get("hot")).isEqualTo(v);
    }
    assertThat(masterLookups() - before)
        .as("without the cache every get asks the master")
        .isEqualTo(3);
  }

  @Test
  void aRemovedKeyIsNeverReadThroughAStaleReplicaList() throws Exception {
    // this reader keeps replica lists for 48 s: far longer than the pool's 1 s leases, so only the
    // storage
    // nodes' checks stand between it and a removed object
    KvPoolClient reader = client("overconfident", Duration.ofSeconds(60));
    ByteBuffer v1 = value(64 << 10, 2);
    writer.put("gone", v1, 2);
    assertThat(reader.get("gone")).isEqualTo(v1);
    outliveTheLease();
    assertThat(writer.remove("gone")).isTrue();
    assertThatThrownBy(() -> reader.get("gone")).isInstanceOf(ObjectNotFoundException.class);
    assertThat(reader.locationCacheStats().stale()).isEqualTo(1);

    // a new object of the same key and size, quite possibly in the very range of the old one
    writer.put("again", v1, 1);
    assertThat(reader.get("again")).isEqualTo(v1);
    outliveTheLease();
    assertThat(writer.remove("again")).isTrue();
    ByteBuffer v2 = value(64 << 10, 3);
    writer.put("again", v2, 1);
    assertThat(reader.get("again")).as("the new object, never the removed one").isEqualTo(v2);
    assertThat(reader.locationCacheStats().stale()).isEqualTo(2);
  }

  @Test
  void anEvictedKeyIsNeverReadThroughAStaleReplicaList() throws Exception {
    KvPoolClient reader = client("overconfident", Duration.ofSeconds(60));
    ByteBuffer v = value(1 << 20, 4);
    writer.put("victim", v, 1);
    assertThat(reader.get("victim")).isEqualTo(v);
    outliveTheLease();
    // fill the pool well past its watermark: the least recently used object, the victim, is evicted
    for (int i = 0; i < 60 && writer.exists("victim"); i++) {
      writer.put("filler/" + i, value(1 << 20, 100 + i), 1);
    }
    assertThat(writer.exists("victim")).as("evicted").isFalse();
    assertThatThrownBy(() -> reader.get("victim")).isInstanceOf(ObjectNotFoundException.class);
    assertThat(reader.locationCacheStats().stale()).isEqualTo(1);
  }

  @Test
  void aCachedReplicaListIsRefusedAfterAMasterRestartAndTheGetStillSucceeds() throws Exception {
    KvPoolClient reader = client("reader", Duration.ofSeconds(60));
    ByteBuffer v = value(256 << 10, 5);
    writer.put("survivor", v, 2);
    assertThat(reader.get("survivor")).isEqualTo(v);

    // the master fails and comes back: the nodes re-register, each with a new key, so earlier
    // tokens are void
    master.close();
    master = startMaster(masterPort);
    awaitServing();
    assertThat(writer.exists("survivor")).isTrue();
    assertThat(reader.get("survivor")).isEqualTo(v);
    assertThat(reader.locationCacheStats().stale())
        .as("the old token was refused, the master asked again")
        .isEqualTo(1);
    assertThat(reader.get("survivor")).isEqualTo(v);
  }

  @Test
  void batchGetsReadCachedKeysStraightAwayAndAskTheMasterOnceForTheRest() throws Exception {
    KvPoolClient reader = client("reader", LEASE);
    List<String> keys = new ArrayList<>();
    List<ByteBuffer> values = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      keys.add("b/" + i);
      values.add(value(10_000 + 1000 * i, 10 + i));
      writer.put(keys.get(i), values.get(i), i % 2 + 1);
    }
    long before = masterLookups();
    assertThat(reader.getBatch(keys.subList(0, 5))).hasSize(5);
    assertThat(masterLookups() - before).as("one request, five keys").isEqualTo(5);

    List<String> all = new ArrayList<>(keys);
    all.add("b/missing");
    List<ByteBuffer> dsts = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      dsts.add(ByteBuffer.allocateDirect(32 << 10));
    }
    before = masterLookups();
    int[] sizes = reader.getBatch(all, dsts);
    assertThat(masterLookups() - before)
        .as("only the five uncached keys and the missing one")
        .isEqualTo(6);
    for (int i = 0; i < 10; i++) {
      assertThat(sizes[i]).isEqualTo(values.get(i).remaining());
      assertThat(dsts.get(i).duplicate().limit(sizes[i])).isEqualTo(values.get(i));
      assertThat(dsts.get(i).position()).as("the caller's position is left alone").isZero();
    }
    assertThat(sizes[10]).isEqualTo(-1);
    assertThatThrownBy(
            () -> reader.getBatch(keys, Collections.nCopies(10, ByteBuffer.allocateDirect(100))))
        .isInstanceOf(BufferTooSmallException.class);
  }

  @Test
  void aBatchWithStaleCachedListsAsksTheMasterForThemAndReadsWhatIsStoredNow() throws Exception {
    KvPoolClient reader = client("overconfident", Duration.ofSeconds(60));
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      keys.add("s/" + i);
      writer.put(keys.get(i), value(8192, 40 + i), 1);
    }
    assertThat(reader.getBatch(keys)).hasSize(6);
    outliveTheLease();
    assertThat(writer.remove("s/0")).isTrue();
    assertThat(writer.remove("s/1")).isTrue();
    assertThat(writer.remove("s/2")).isTrue();
    ByteBuffer replaced = value(8192, 99);
    writer.put("s/2", replaced, 1);

    Map<String, ByteBuffer> got = reader.getBatch(keys);
    assertThat(got).doesNotContainKeys("s/0", "s/1");
    assertThat(got.get("s/2")).isEqualTo(replaced);
    for (int i = 3; i < 6; i++) {
      assertThat(got.get(keys.get(i))).isEqualTo(value(8192, 40 + i));
    }
    assertThat(reader.locationCacheStats().stale())
        .as("every list was past its lease")
        .isEqualTo(6);
  }

  @Test
  void concurrentWritersOfOneKeyLeaveOneWholeValueThatEveryCachedReaderSees() throws Exception {
    int size = 128 << 10;
    List<KvPoolClient> writers = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      writers.add(client("writer-" + w, LEASE));
    }
    List<KvPoolClient> readers = List.of(client("reader-0", LEASE), client("reader-1", LEASE));
    for (int k = 0; k < 8; k++) {
      String key = "race/" + k;
      List<Throwable> errors = new CopyOnWriteArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int w = 0; w < writers.size(); w++) {
        KvPoolClient c = writers.get(w);
        ByteBuffer v = value(size, 1000L * k + w);
        threads.add(
            new Thread(
                () -> {
                  try {
                    // one writer stores its value, the others find the key stored and keep it
                    c.put(key, v, 2);
                  } catch (Throwable e) {
                    errors.add(e);
                  }
                }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertThat(errors).isEmpty();
      ByteBuffer first = readers.get(0).get(key);
      List<ByteBuffer> candidates = new ArrayList<>();
      for (int w = 0; w < writers.size(); w++) {
        candidates.add(value(size, 1000L * k + w));
      }
      assertThat(candidates).as("one writer's whole value").contains(first);
      for (int i = 0; i < 5; i++) {
        for (KvPoolClient r : readers) {
          assertThat(r.get(key)).isEqualTo(first);
        }
      }
    }
    assertThat(readers.get(0).locationCacheStats().hits()).isPositive();
  }

  @Test
  void cachedReadersNeverSeeAValueAfterItsRemoveReturned() throws Exception {
    int size = 64 << 10;
    // for each value written: when its remove returned (0: not yet)
    Map<Long, long[]> removedAt = new ConcurrentHashMap<>();
    AtomicLong sequence = new AtomicLong();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    long until = System.nanoTime() + Duration.ofSeconds(8).toNanos();
    List<Thread> threads = new ArrayList<>();
    KvPoolClient w = client("writer-0", LEASE);
    threads.add(
        new Thread(
            () -> {
              try {
                while (System.nanoTime() < until) {
                  long seq = sequence.incrementAndGet();
                  ByteBuffer v = value(size, seq);
                  v.putLong(0, seq);
                  removedAt.put(seq, new long[1]);
                  w.put("cycled", v, 2);
                  while (System.nanoTime() < until) {
                    try {
                      assertThat(w.remove("cycled")).isTrue();
                      removedAt.get(seq)[0] = System.nanoTime();
                      break;
                    } catch (KvPoolException leased) {
                      Thread.sleep(5); // readers hold read leases; the remove waits them out
                    }
                  }
                }
              } catch (Throwable e) {
                errors.add(e);
              }
            }));
    AtomicLong reads = new AtomicLong();
    for (int r = 0; r < 3; r++) {
      KvPoolClient c = client("reader-" + r, LEASE);
      threads.add(
          new Thread(
              () -> {
                ByteBuffer dst = ByteBuffer.allocateDirect(size);
                Random pauses = new Random();
                try {
                  long burstEnds = System.nanoTime() + 200_000_000L;
                  while (System.nanoTime() < until) {
                    if (System.nanoTime() > burstEnds) {
                      // readers that never pause would renew the read lease for ever and the remove
                      // would wait for ever
                      Thread.sleep(LEASE.toMillis() + pauses.nextInt(600));
                      burstEnds = System.nanoTime() + 200_000_000L;
                    }
                    long started = System.nanoTime();
                    dst.clear();
                    try {
                      c.get("cycled", dst);
                    } catch (ObjectNotFoundException absent) {
                      continue;
                    }
                    long seq = dst.getLong(0);
                    ByteBuffer expected = value(size, seq);
                    expected.putLong(0, seq);
                    if (!dst.flip().equals(expected)) {
                      throw new AssertionError("value " + seq + " came back torn");
                    }
                    long removed = removedAt.get(seq)[0];
                    if (removed != 0 && removed < started) {
                      throw new AssertionError(
                          "value " + seq + " was read after its remove returned");
                    }
                    reads.incrementAndGet();
                  }
                } catch (Throwable e) {
                  errors.add(e);
                }
              }));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(errors).isEmpty();
    assertThat(reads.get()).isPositive();
    assertThat(sequence.get()).as("the key was removed and written again").isGreaterThan(2);
  }
}
