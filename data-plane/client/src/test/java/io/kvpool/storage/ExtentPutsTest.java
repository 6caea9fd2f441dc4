package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.client.AdminMetrics;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.master.Master;
import io.kvpool.master.MasterConfig;
import io.kvpool.master.MasterSettings;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Extent;
import io.kvpool.protocol.ExtentGrantReply;
import io.kvpool.protocol.ExtentGrantRequest;
import io.kvpool.protocol.ExtentReturn;
import io.kvpool.protocol.ExtentWriteRequest;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.PinRequest;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartReply;
import io.kvpool.protocol.PutStartRequest;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.Role;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import io.kvpool.protocol.StatusList;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Small puts through extents (protocol 2.4) with a real master and real storage nodes on loopback:
 * values land byte-exact and are readable by any client; a returned or expired extent takes no
 * value that counts, and its space is not handed out again before the extent is surely over; a late
 * writer with an expired extent cannot land in the range a new object took; puts fall back to
 * PUT_START when no extent is granted; and every acknowledged value survives a change of leader.
 */
class ExtentPutsTest {
  private static final Duration T = Duration.ofSeconds(30);
  private static final int VALUE = 64 << 10;

  private final MasterConfig config =
      MasterConfig.defaults("extents").withTtls(Duration.ofSeconds(60), Duration.ofSeconds(1));
  private Master master;
  private final List<StorageNode> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    nodes.forEach(StorageNode::close);
    if (master != null) {
      master.close();
    }
  }

  private void startPool(int nodeCount, long nodeMemory) throws Exception {
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    for (int i = 0; i < nodeCount; i++) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(master.rpcEndpoint(), "n" + i, "127.0.0.1", nodeMemory, 1)
                      .withHeartbeat(Duration.ofMillis(200)))
              .start(T));
    }
  }

  @Test
  void smallPutsGoThroughExtentsByteExactAndFallBackWhenNoneIsGranted() throws Exception {
    // one node of 32 MiB: the unused parts of extents may hold a quarter of it, 8 MiB
    startPool(1, 32L << 20);
    PrometheusRegistry metrics = new PrometheusRegistry();
    int count = 100;
    try (KvPoolClient writer = client(master.rpcEndpoint(), true, metrics);
        RpcConnection other = asClient(master.rpcEndpoint())) {
      for (int i = 0; i < 10; i++) {
        writer.put("small/" + i, value(VALUE, i), 1);
      }
      assertThat(exchanges(metrics, "EXTENT_WRITE")).isEqualTo(10);
      // another client takes most of what is left of the budget: once the writer's first extent
      // (64 values of 64 KiB) is used up, no second one is granted and the rest go through
      // PUT_START
      ExtentGrantReply taken = grant(other, (4 << 20) + (512 << 10));
      assertThat(taken.status()).as(taken.message()).isEqualTo(ErrorCode.OK);
      for (int i = 10; i < count; i++) {
        writer.put("small/" + i, value(VALUE, i), 1);
      }
      // a stored key keeps its value
      writer.put("small/0", value(VALUE, 999), 1);
    }
    assertThat(exchanges(metrics, "EXTENT_WRITE")).isGreaterThanOrEqualTo(64);
    assertThat(exchanges(metrics, "PUT_START")).isGreaterThanOrEqualTo(1);
    // the client says which path took its puts, and the master why it granted no extent
    long throughExtents = extentPuts(metrics, "extent");
    long throughPutStart = extentPuts(metrics, "put_start");
    assertThat(throughExtents).isGreaterThanOrEqualTo(64);
    assertThat(throughPutStart).isGreaterThanOrEqualTo(1);
    assertThat(throughExtents + throughPutStart).isEqualTo(count + 1);
    assertThat(AdminMetrics.scrape(master.adminEndpoint()))
        .containsPattern("kvpool_extents_total\\{event=\"grant_refused_no_space\"} [1-9]")
        .doesNotContain("kvpool_extents_total{event=\"grant_refused_limit\"}");
    try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
      for (int i = 0; i < count; i++) {
        assertThat(reader.get("small/" + i)).as("small/%d", i).isEqualTo(value(VALUE, i));
      }
    }
  }

  /**
   * The master grants one client id at most 8 open extents; clients built without an id each get
   * one of their own, so a ninth of them still puts through an extent (with one shared default id,
   * as before, it put through PUT_START).
   */
  @Test
  void clientsGivenNoIdEachGetExtentsOfTheirOwn() throws Exception {
    // nine extents of 4 MiB must fit in the quarter of the pool that unused extents may hold
    startPool(1, 160L << 20);
    List<PrometheusRegistry> metrics = new ArrayList<>();
    List<KvPoolClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < 9; i++) {
        PrometheusRegistry m = new PrometheusRegistry();
        metrics.add(m);
        clients.add(
            KvPoolClient.connect(
                ClientConfig.builder()
                    .master(master.rpcEndpoint())
                    .timeout(T)
                    .extents(true)
                    .metrics(m)
                    .build()));
        clients.get(i).put("anonymous/" + i, value(4096, i), 1);
      }
      for (int i = 0; i < 9; i++) {
        assertThat(exchanges(metrics.get(i), "EXTENT_WRITE")).as("client %d", i).isEqualTo(1);
        assertThat(exchanges(metrics.get(i), "PUT_START")).as("client %d", i).isZero();
      }
    } finally {
      clients.forEach(KvPoolClient::close);
    }
    try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
      for (int i = 0; i < 9; i++) {
        assertThat(reader.get("anonymous/" + i)).isEqualTo(value(4096, i));
      }
    }
  }

  @Test
  void threadsSharingOneClientUseUpItsExtentsWithoutAWriteRefused() throws Exception {
    // 4 threads, 96 values of 64 KiB each: 384 values, 6 extents of 64 values used up in turn,
    // each while other threads' writes into it are in flight; it is given back only when they
    // ended, so none of them is refused for it (before, the first thread to find it used up gave
    // it back at once, their commits were refused, and they went through PUT_START)
    startPool(1, 128L << 20);
    PrometheusRegistry metrics = new PrometheusRegistry();
    int threads = 4;
    int perThread = 96;
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    try (KvPoolClient writer = client(master.rpcEndpoint(), true, metrics)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        done.add(
            executor.submit(
                () -> {
                  for (int i = 0; i < perThread; i++) {
                    writer.put("shared/" + thread + "/" + i, value(VALUE, thread * 1000L + i), 1);
                  }
                }));
      }
      for (Future<?> f : done) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      executor.shutdownNow();
    }
    assertThat(exchanges(metrics, "EXTENT_WRITE")).isEqualTo(threads * perThread);
    assertThat(exchanges(metrics, "PUT_START")).as("puts that fell back to PUT_START").isZero();
    try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
      for (int t = 0; t < threads; t++) {
        for (int i = 0; i < perThread; i++) {
          assertThat(reader.get("shared/" + t + "/" + i))
              .as("shared/%d/%d", t, i)
              .isEqualTo(value(VALUE, t * 1000L + i));
        }
      }
    }
  }

  @Test
  void afterANodeFailedAWriteTheNextExtentComesFromAnotherNode() throws Exception {
    // n0 has 16 times n1's memory, so placement, weighted by capacity, would grant most extents
    // there; n0 then stops serving while the master still counts it alive (node TTL 60 s): the
    // write into its extent fails, and the next grant names n0 to avoid, so the following puts
    // go into an extent on n1 instead of failing again at n0 and falling back to PUT_START
    master = new Master(MasterSettings.local(config, "127.0.0.1", 0, 0)).start();
    for (String id : List.of("n0", "n1")) {
      nodes.add(
          new StorageNode(
                  StorageConfig.local(
                          master.rpcEndpoint(),
                          id,
                          "127.0.0.1",
                          id.equals("n0") ? 256L << 20 : 16L << 20,
                          1)
                      .withHeartbeat(Duration.ofMillis(200)))
              .start(T));
    }
    PrometheusRegistry metrics = new PrometheusRegistry();
    try (KvPoolClient writer = clientWithAnExtentOnTheFirstNode(metrics)) {
      StorageNode n0 = nodes.remove(0);
      n0.close();
      long putStarts = exchanges(metrics, "PUT_START");
      long extentWrites = exchanges(metrics, "EXTENT_WRITE");
      writer.put("avoid/fails-at-n0", value(VALUE, 1), 1);
      assertThat(exchanges(metrics, "PUT_START"))
          .as("the put whose extent write failed goes through PUT_START")
          .isGreaterThan(putStarts);
      putStarts = exchanges(metrics, "PUT_START");
      for (int i = 0; i < 20; i++) {
        writer.put("avoid/after/" + i, value(VALUE, 100 + i), 1);
      }
      assertThat(exchanges(metrics, "EXTENT_WRITE") - extentWrites)
          .as("puts after the failure, into an extent on n1")
          .isEqualTo(20);
      assertThat(exchanges(metrics, "PUT_START")).isEqualTo(putStarts);
      assertThat(writer.get("avoid/fails-at-n0")).isEqualTo(value(VALUE, 1));
      for (int i = 0; i < 20; i++) {
        assertThat(writer.get("avoid/after/" + i)).isEqualTo(value(VALUE, 100 + i));
      }
    }
  }

  /**
   * A client whose first extent is on the first node (a closed client gives its extent back); the
   * first node is drawn by its share of the capacity each time.
   */
  private KvPoolClient clientWithAnExtentOnTheFirstNode(PrometheusRegistry metrics)
      throws Exception {
    for (int attempt = 0; attempt < 20; attempt++) {
      KvPoolClient c = client(master.rpcEndpoint(), true, metrics);
      long before = nodes.get(0).status().objects();
      c.put("avoid/probe/" + attempt, value(1024, attempt), 1);
      if (nodes.get(0).status().objects() > before) {
        return c;
      }
      c.close();
    }
    throw new AssertionError("20 clients in a row got their first extent elsewhere");
  }

  @Test
  void aReturnedOrExpiredExtentTakesNoValueAndItsSpaceWaitsUntilItIsOver() throws Exception {
    startPool(1, 2L << 20); // extents may hold 512 KiB
    try (RpcConnection c = asClient(master.rpcEndpoint())) {
      ExtentGrantReply grant = grant(c, 256 << 10);
      assertThat(grant.status()).as(grant.message()).isEqualTo(ErrorCode.OK);
      Extent e = grant.extent();
      HostPort node = HostPort.parse(grant.endpoint());
      try (RpcConnection n = asClient(node)) {
        write(n, e, "in/0", e.firstGeneration(), 0, value(VALUE, 1));
        BodyWriter pin = new BodyWriter();
        new PinRequest("in/0", true).encode(pin);
        c.call(Opcode.PIN, pin);
        // each unit and each generation of an extent is written once
        assertRefused(
            () -> write(n, e, "in/1", e.firstGeneration(), VALUE, value(VALUE, 2)),
            ErrorCode.OUT_OF_BOUNDS);
        assertRefused(
            () -> write(n, e, "in/1", e.firstGeneration() + 1, 0, value(VALUE, 2)),
            ErrorCode.OUT_OF_BOUNDS);
        Extent forged =
            new Extent(
                e.firstGeneration(),
                e.generations(),
                e.segmentId(),
                e.offset(),
                e.length() * 2,
                e.expiresAtMillis(),
                e.token());
        assertRefused(
            () -> write(n, forged, "in/1", e.firstGeneration() + 1, 3 * VALUE, value(VALUE, 2)),
            ErrorCode.GRANT_REJECTED);

        BodyWriter back = new BodyWriter();
        new ExtentReturn(List.of(e.firstGeneration())).encode(back);
        assertThat(StatusList.decode(c.call(Opcode.EXTENT_RETURN, back).reader()).statuses())
            .containsExactly(ErrorCode.OK);
        // a write into a returned extent never counts
        assertRefused(
            () -> write(n, e, "late/1", e.firstGeneration() + 2, VALUE, value(VALUE, 3)),
            ErrorCode.GRANT_REJECTED);

        // while the extent may still be written, PUT_START hands out none of its range
        List<Slice> granted = fill(c);
        assertThat(granted).isNotEmpty();
        for (Slice s : granted) {
          assertThat(overlaps(s, e)).as("%s inside the open extent %s", s, e).isFalse();
        }
        try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
          assertThat(reader.get("in/0")).isEqualTo(value(VALUE, 1));
          assertThat(reader.exists("late/1")).isFalse();
        }

        // once the extent is surely over (expiry + margin) its unused space is reused
        long deadline = System.currentTimeMillis() + 60_000;
        List<Slice> reused = List.of();
        while (reused.isEmpty() && System.currentTimeMillis() < deadline) {
          Thread.sleep(500); // polling the master for the extent's end, not synchronising
          reused = fill(c).stream().filter(s -> overlaps(s, e)).toList();
        }
        assertThat(reused).as("the extent's space after it ended").isNotEmpty();
        // a late writer with the expired extent cannot land in the range a new object took
        Slice taken = reused.get(0);
        int at = (int) (taken.offset() - e.offset());
        assertRefused(
            () -> write(n, e, "late/2", e.firstGeneration() + 3, at, value(VALUE, 4)),
            ErrorCode.GRANT_REJECTED);
      }
    }
    try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
      for (String key : filled) {
        assertThat(reader.get(key)).as(key).isEqualTo(value(VALUE, key.hashCode()));
      }
      assertThat(reader.exists("late/2")).isFalse();
    }
  }

  @Test
  void everyAcknowledgedExtentPutSurvivesAChangeOfLeader() throws Exception {
    startPool(2, 16L << 20);
    HostPort endpoint = master.rpcEndpoint();
    PrometheusRegistry metrics = new PrometheusRegistry();
    Extent old;
    String oldNode;
    try (KvPoolClient writer = client(endpoint, true, metrics)) {
      for (int i = 0; i < 30; i++) {
        writer.put("before/" + i, value(VALUE, i), 1);
      }
      assertThat(exchanges(metrics, "EXTENT_WRITE")).isEqualTo(30);
      try (RpcConnection c = asClient(endpoint)) {
        ExtentGrantReply g = grant(c, 256 << 10);
        old = g.extent();
        oldNode = g.endpoint();
      }
      // the leader goes with extents outstanding; a new one takes over on the same address
      master.close();
      master = new Master(MasterSettings.local(config, "127.0.0.1", endpoint.port(), 0)).start();
      for (int i = 0; i < 30; i++) {
        writer.put("after/" + i, value(VALUE, 100 + i), 1); // the old extent is refused: a new one
      }
    }
    try (KvPoolClient reader = client(endpoint, false, new PrometheusRegistry())) {
      for (int i = 0; i < 30; i++) {
        assertThat(reader.get("before/" + i)).as("before/%d", i).isEqualTo(value(VALUE, i));
        assertThat(reader.get("after/" + i)).as("after/%d", i).isEqualTo(value(VALUE, 100 + i));
      }
      // an extent of the old leader admits nothing: its node registered again under a new key
      try (RpcConnection n = asClient(HostPort.parse(oldNode))) {
        assertRefused(
            () -> write(n, old, "stale", old.firstGeneration(), 0, value(VALUE, 7)),
            ErrorCode.GRANT_REJECTED);
      }
      assertThat(reader.exists("stale")).isFalse();
    }
  }

  @Test
  void aWriterStalledInAnExpiringExtentIsCutAndHostileNumbersAreRefused() throws Exception {
    startPool(1, 16L << 20);
    try (RpcConnection c = asClient(master.rpcEndpoint())) {
      ExtentGrantReply grant = grant(c, 256 << 10);
      assertThat(grant.status()).as(grant.message()).isEqualTo(ErrorCode.OK);
      Extent e = grant.extent();
      HostPort node = HostPort.parse(grant.endpoint());
      try (RpcConnection n = asClient(node)) {
        // numbers outside the extent: refused, the payload skipped, the connection still usable
        assertRefused(
            () -> write(n, e, "bad/1", e.firstGeneration(), 32, value(VALUE, 1)),
            ErrorCode.OUT_OF_BOUNDS); // not a multiple of 64
        assertRefused(
            () -> write(n, e, "bad/2", e.firstGeneration(), e.length() - 64, value(VALUE, 1)),
            ErrorCode.OUT_OF_BOUNDS); // beyond the extent
        assertRefused(
            () -> write(n, e, "bad/3", e.firstGeneration() + e.generations(), 0, value(VALUE, 1)),
            ErrorCode.OUT_OF_BOUNDS); // not one of its generations
        assertRefused(
            () -> write(n, e, "bad/4", e.firstGeneration(), -64, value(VALUE, 1)),
            ErrorCode.OUT_OF_BOUNDS);
        write(n, e, "good", e.firstGeneration(), 0, value(VALUE, 5));
      }
      try (RpcConnection n = asClient(node)) {
        // a value size that cannot be skipped ends the connection after the refusal
        BodyWriter w = new BodyWriter();
        new ExtentWriteRequest(e, "bad/5", e.firstGeneration() + 1, 0, -1, 0).encode(w);
        assertRefused(() -> n.call(Opcode.EXTENT_WRITE, w), ErrorCode.LIMIT_EXCEEDED);
        assertThatThrownBy(() -> n.call(Opcode.PING, null)).isInstanceOf(java.io.IOException.class);
      }
      // a writer that sends a tenth of its value and stalls: cut when the extent expires, so none
      // of its bytes can land after the master may reuse the range
      try (RpcConnection n = asClient(node)) {
        BodyWriter w = new BodyWriter();
        ByteBuffer v = value(VALUE, 6);
        new ExtentWriteRequest(e, "stalled", e.firstGeneration() + 2, 2 * VALUE, VALUE, crc(v))
            .encode(w);
        long id = n.send(Opcode.EXTENT_WRITE, w, v.limit(VALUE / 10));
        try (RpcConnection.Deadline d = n.deadline(Duration.ofSeconds(60))) {
          assertThatThrownBy(() -> n.receive(Opcode.EXTENT_WRITE, id))
              .isInstanceOf(java.io.IOException.class)
              .isNotInstanceOf(RemoteErrorException.class);
        }
        assertThat(cutWrites(nodes.get(0)))
            .as("writes the node cut when their extent expired (not its payload deadline)")
            .isEqualTo(1);
      }
    }
    try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
      assertThat(reader.get("good")).isEqualTo(value(VALUE, 5));
      for (String key : List.of("bad/1", "bad/2", "bad/3", "bad/4", "bad/5", "stalled")) {
        assertThat(reader.exists(key)).as(key).isFalse();
      }
    }
  }

  @Test
  void extentPutsInFlightAcrossALeaderChangeAreStoredOrAbsentNeverHalfVisible() throws Exception {
    startPool(2, 32L << 20);
    HostPort endpoint = master.rpcEndpoint();
    java.util.concurrent.ConcurrentHashMap<String, Boolean> outcome =
        new java.util.concurrent.ConcurrentHashMap<>(); // key -> acknowledged
    java.util.concurrent.atomic.AtomicBoolean stop =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicInteger acked =
        new java.util.concurrent.atomic.AtomicInteger();
    List<Thread> writers = new ArrayList<>();
    try (KvPoolClient writer = client(endpoint, true, new PrometheusRegistry())) {
      for (int t = 0; t < 2; t++) {
        int thread = t;
        Thread w =
            new Thread(
                () -> {
                  for (int i = 0; !stop.get() && i < 300; i++) {
                    String key = "flight/" + thread + "/" + i;
                    try {
                      writer.put(key, value(VALUE, key.hashCode()), 1);
                      outcome.put(key, true);
                      acked.incrementAndGet();
                    } catch (RuntimeException e) {
                      outcome.put(key, false);
                    }
                  }
                });
        w.start();
        writers.add(w);
      }
      awaitAcked(acked, 20);
      // the leader goes while puts stream through extents; a new one takes over on the same address
      master.close();
      master = new Master(MasterSettings.local(config, "127.0.0.1", endpoint.port(), 0)).start();
      int before = acked.get();
      awaitAcked(acked, before + 20);
      stop.set(true);
      for (Thread w : writers) {
        w.join(T.toMillis());
      }
    }
    assertThat(outcome.values()).contains(true);
    try (KvPoolClient reader = client(endpoint, false, new PrometheusRegistry())) {
      for (var e : outcome.entrySet()) {
        String key = e.getKey();
        if (e.getValue()) {
          assertThat(reader.get(key))
              .as("acknowledged %s", key)
              .isEqualTo(value(VALUE, key.hashCode()));
        } else if (reader.exists(key)) {
          // a put that failed may be stored after all, but only whole: never visible and unreadable
          assertThat(reader.get(key))
              .as("failed but visible %s", key)
              .isEqualTo(value(VALUE, key.hashCode()));
        }
      }
    }
  }

  /**
   * The window PROTOCOL.md "Failover and re-registration" closes: the master refuses a value while
   * its node begins to register again, and the node's fence stops waiting for that answer before it
   * arrives. The inventory then sent carries the value, so the refusal no longer decides: the node
   * keeps the value and tells the writer the answer is unknown, and the new leader's copy of it is
   * whole and readable. Before the fix the writer was told GRANT_REJECTED while the new leader
   * adopted the value its node had dropped.
   */
  @Test
  void aRefusalAnsweredAfterTheNodeRegisteredAgainNeitherDropsNorHidesTheValue() throws Exception {
    ByteBuffer v = value(VALUE, 11);
    assertThat(answerHeldAcrossALeaderChange("refused", v, true))
        .as("the writer's answer: the refusal came after the inventory that holds the value")
        .isEqualTo(ErrorCode.NODE_UNAVAILABLE);
    try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
      assertThat(reader.get("refused")).as("the value the new leader adopted").isEqualTo(v);
    }
  }

  /**
   * The same window with the master's acknowledgement: the value is stored, as the writer heard.
   */
  @Test
  void anAcknowledgementAnsweredAfterTheNodeRegisteredAgainKeepsTheValue() throws Exception {
    ByteBuffer v = value(VALUE, 12);
    assertThat(answerHeldAcrossALeaderChange("acknowledged", v, false)).isEqualTo(ErrorCode.OK);
    try (KvPoolClient reader = client(master.rpcEndpoint(), false, new PrometheusRegistry())) {
      assertThat(reader.get("acknowledged")).isEqualTo(v);
    }
  }

  /**
   * Writes {@code key} into an extent of a pool of one node ({@code givenBack}: an extent the
   * client returned first, so the master refuses the commit) and holds the master's answer at the
   * node (a seam, past the bound of the node's fence) while the leader changes and the node
   * registers with the new one; then lets the writer go on. The writer's answer.
   */
  private ErrorCode answerHeldAcrossALeaderChange(String key, ByteBuffer v, boolean givenBack)
      throws Exception {
    startPool(1, 16L << 20);
    HostPort endpoint = master.rpcEndpoint();
    java.util.concurrent.CountDownLatch answered = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    nodes.get(0).extentWrites().beforeSettle =
        () -> {
          answered.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        };
    try (RpcConnection c = asClient(endpoint)) {
      ExtentGrantReply g = grant(c, 256 << 10);
      assertThat(g.status()).as(g.message()).isEqualTo(ErrorCode.OK);
      Extent e = g.extent();
      if (givenBack) {
        BodyWriter back = new BodyWriter();
        new ExtentReturn(List.of(e.firstGeneration())).encode(back);
        assertThat(StatusList.decode(c.call(Opcode.EXTENT_RETURN, back).reader()).statuses())
            .containsExactly(ErrorCode.OK);
      }
      try (RpcConnection n = asClient(HostPort.parse(g.endpoint()))) {
        BodyWriter w = new BodyWriter();
        new ExtentWriteRequest(e, key, e.firstGeneration(), 0, v.remaining(), crc(v)).encode(w);
        long id = n.send(Opcode.EXTENT_WRITE, w, v.duplicate());
        try {
          assertThat(answered.await(T.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS))
              .as("the node has the master's answer to its commit")
              .isTrue();
          // the node registers with the new leader: its fence waits for the held answer in vain,
          // and the inventory it sends carries the value
          master.close();
          master =
              new Master(MasterSettings.local(config, "127.0.0.1", endpoint.port(), 0)).start();
          long deadline = System.currentTimeMillis() + 60_000;
          while (master.status().objectCount() < 1 && System.currentTimeMillis() < deadline) {
            Thread.sleep(50); // polling the new leader for the node's inventory, not synchronising
          }
          assertThat(master.status().objectCount())
              .as("objects the new leader adopted from the node's inventory: %s", master.status())
              .isEqualTo(1);
        } finally {
          release.countDown();
        }
        try (RpcConnection.Deadline d = n.deadline(T)) {
          n.receive(Opcode.EXTENT_WRITE, id).reader().finish();
          return ErrorCode.OK;
        } catch (RemoteErrorException answer) {
          return answer.code();
        }
      }
    }
  }

  private static void awaitAcked(java.util.concurrent.atomic.AtomicInteger acked, int atLeast)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (acked.get() < atLeast && System.currentTimeMillis() < deadline) {
      Thread.sleep(20); // polling the writers' progress, not synchronising with them
    }
    assertThat(acked.get()).as("puts acknowledged within a minute").isGreaterThanOrEqualTo(atLeast);
  }

  // ---- helpers ----

  private final List<String> filled = new ArrayList<>();

  /**
   * Puts pinned 64 KiB values with PUT_START + WRITE until the pool has no room; the slices
   * granted.
   */
  private List<Slice> fill(RpcConnection c) throws Exception {
    List<Slice> out = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      String key = "fill/" + filled.size();
      ByteBuffer v = value(VALUE, key.hashCode());
      BodyWriter w = new BodyWriter();
      new PutStartRequest(List.of(new PutStartItem(key, VALUE, crc(v), 1, i, List.of()))).encode(w);
      PutStartResult r =
          PutStartReply.decode(c.call(Opcode.PUT_START, w).reader()).results().get(0);
      if (r.status() != ErrorCode.OK) {
        return out;
      }
      var grant = r.replicas().get(0);
      try (RpcConnection n = asClient(HostPort.parse(grant.endpoint()))) {
        for (SliceGrant g : grant.slices()) {
          BodyWriter wr = new BodyWriter();
          io.kvpool.protocol.WriteRequest.of(
                  key, r.generation(), g, VALUE, crc(v), 1, r.expiresAtMillis())
              .encode(wr);
          n.call(
              Opcode.WRITE,
              wr,
              v.duplicate()
                  .position(g.slice().valueOffset())
                  .limit(g.slice().valueOffset() + g.slice().length()));
          out.add(g.slice());
        }
      }
      BodyWriter pin = new BodyWriter();
      new PinRequest(key, true).encode(pin); // pinned: eviction cannot make room, so the pool fills
      c.call(Opcode.PIN, pin);
      filled.add(key);
    }
    return out;
  }

  /** The node's count of extent writes it cut, from its admin endpoint's metrics. */
  private static long cutWrites(StorageNode node) throws Exception {
    HostPort admin = node.adminEndpoint();
    String text =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://" + admin + "/metrics"))
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString())
            .body();
    for (String line : text.split("\n")) {
      if (line.startsWith("kvpool_storage_extent_writes_cut_total ")) {
        return (long) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
      }
    }
    throw new AssertionError("no kvpool_storage_extent_writes_cut_total in\n" + text);
  }

  private static boolean overlaps(Slice s, Extent e) {
    return s.segmentId() == e.segmentId()
        && s.offset() < e.offset() + e.length()
        && e.offset() < s.offset() + s.length();
  }

  private static ExtentGrantReply grant(RpcConnection c, int length) throws Exception {
    BodyWriter w = new BodyWriter();
    new ExtentGrantRequest(length, List.of()).encode(w);
    return ExtentGrantReply.decode(c.call(Opcode.EXTENT_GRANT, w).reader());
  }

  private static void write(
      RpcConnection n, Extent e, String key, long generation, int at, ByteBuffer v)
      throws Exception {
    BodyWriter w = new BodyWriter();
    new ExtentWriteRequest(e, key, generation, at, v.remaining(), crc(v)).encode(w);
    n.call(Opcode.EXTENT_WRITE, w, v).reader().finish();
  }

  private interface Call {
    void run() throws Exception;
  }

  private static void assertRefused(Call call, ErrorCode code) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            RemoteErrorException.class,
            e -> assertThat(e.code()).as(e.getMessage()).isEqualTo(code));
  }

  private static RpcConnection asClient(HostPort endpoint) throws Exception {
    return RpcConnection.open(
        endpoint, new Handshake(VersionInfo.CURRENT, Role.CLIENT, "extents", "raw-client"), T);
  }

  private static KvPoolClient client(HostPort master, boolean extents, PrometheusRegistry metrics) {
    return KvPoolClient.connect(
        ClientConfig.builder()
            .master(master)
            .clientId("extents-test")
            .timeout(T)
            .extents(extents)
            .metrics(metrics)
            .build());
  }

  /** How many exchanges of {@code opcode} the client made (its RPC histogram's count). */
  private static long extentPuts(PrometheusRegistry metrics, String path) {
    for (MetricSnapshot m : metrics.scrape()) {
      if (m instanceof CounterSnapshot c
          && c.getMetadata().getPrometheusName().equals("kvpool_client_extent_puts")) {
        for (var p : c.getDataPoints()) {
          if (path.equals(p.getLabels().get("path"))) {
            return (long) p.getValue();
          }
        }
      }
    }
    return 0;
  }

  private static long exchanges(PrometheusRegistry metrics, String opcode) {
    for (MetricSnapshot m : metrics.scrape()) {
      if (m instanceof HistogramSnapshot h
          && h.getMetadata().getPrometheusName().equals("kvpool_client_rpc_duration_seconds")) {
        for (var p : h.getDataPoints()) {
          if (opcode.equals(p.getLabels().get("opcode"))) {
            return p.getCount();
          }
        }
      }
    }
    return 0;
  }

  private static int crc(ByteBuffer v) {
    CRC32C c = new CRC32C();
    c.update(v.duplicate());
    return (int) c.getValue();
  }

  private static ByteBuffer value(int size, long seed) {
    byte[] bytes = new byte[size];
    new Random(seed).nextBytes(bytes);
    return ByteBuffer.allocateDirect(size).put(bytes).flip();
  }
}
