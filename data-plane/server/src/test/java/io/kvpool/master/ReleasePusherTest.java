package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.ReleaseRequest;
import io.kvpool.protocol.Role;
import io.kvpool.rpc.RpcServer;
import io.kvpool.rpc.ServerLimits;
import io.kvpool.security.PoolSecrets;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A node the master cannot reach, or one that is frozen, does not hold every REMOVE for the push
 * timeout, nor the pushes to healthy nodes: once a push to it failed or timed out, pushes to it are
 * skipped (its heartbeat carries the releases) for the quiet period. Against real servers.
 */
class ReleasePusherTest {
  /** Today's limits, but a node whose push failed stays quiet for the whole test. */
  private static final ReleasePushLimits LONG_QUIET =
      ReleasePushLimits.DEFAULTS.withQuietAfterFailure(Duration.ofMinutes(1));

  private final Counter pushes =
      Counter.builder()
          .name("pushes_total")
          .labelNames("outcome")
          .register(new PrometheusRegistry());

  private double outcomes(String outcome) {
    return pushes.labelValues(outcome).get();
  }

  @Test
  void aNodeWhosePushFailedIsSkippedUntilItsQuietPeriodEnds() throws Exception {
    int port;
    try (ServerSocketChannel s =
        ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
      port =
          ((InetSocketAddress) s.getLocalAddress())
              .getPort(); // closed again: connections are refused
    }
    Map<String, List<Release>> toGoneNode =
        Map.of("127.0.0.1:" + port, List.of(new Release("k", 1, true)));
    try (ReleasePusher pusher = new ReleasePusher("p", PoolSecrets.none(), pushes, LONG_QUIET)) {
      pusher.push(toGoneNode, 1);
      assertThat(outcomes("failed")).isEqualTo(1);
      for (int i = 0; i < 3; i++) {
        pusher.push(toGoneNode, 1);
      }
      assertThat(outcomes("skipped")).isEqualTo(3);
      assertThat(outcomes("failed")).as("not tried again").isEqualTo(1);
    }
  }

  /**
   * A burst of REMOVEs from several threads, each releasing on a frozen node (a real server whose
   * handler is held) and a healthy one: every push to the healthy node is delivered, and the frozen
   * one costs each REMOVE thread at most one wait; after that it is skipped.
   */
  @Test
  void aFrozenNodeUnderABurstOfRemovesIsSkippedAndHoldsNoPushToAHealthyNode() throws Exception {
    int threads = 6;
    int removesPerThread = 40;
    CountDownLatch thaw = new CountDownLatch(1);
    AtomicInteger healthyReleases = new AtomicInteger();
    try (RpcServer frozen =
            server(
                "frozen",
                (session, frame) -> {
                  try {
                    thaw.await(); // holds the handler: the node answers nothing, as if SIGSTOPped
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  ReleaseRequest.decode(frame.reader(), session.agreedMinor());
                  session.reply(frame, new BodyWriter());
                });
        RpcServer healthy =
            server(
                "healthy",
                (session, frame) -> {
                  assertThat(frame.opcode()).isEqualTo(Opcode.RELEASE);
                  healthyReleases.addAndGet(
                      ReleaseRequest.decode(frame.reader(), session.agreedMinor())
                          .releases()
                          .size());
                  session.reply(frame, new BodyWriter());
                });
        ReleasePusher pusher = new ReleasePusher("pool", PoolSecrets.none(), pushes, LONG_QUIET)) {
      String frozenAt = frozen.endpoint().toString();
      String healthyAt = healthy.endpoint().toString();
      ExecutorService removers = Executors.newFixedThreadPool(threads);
      long started = System.nanoTime();
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          done.add(
              removers.submit(
                  () -> {
                    for (int i = 0; i < removesPerThread; i++) {
                      Release r = new Release("k" + thread + "/" + i, 1, true);
                      pusher.push(Map.of(frozenAt, List.of(r), healthyAt, List.of(r)), 1);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get(5, TimeUnit.MINUTES);
        }
      } finally {
        removers.shutdownNow();
        thaw.countDown();
      }
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      int removes = threads * removesPerThread;
      String seen =
          "delivered=%s timed_out=%s failed=%s skipped=%s in %d ms"
              .formatted(
                  outcomes("delivered"),
                  outcomes("timed_out"),
                  outcomes("failed"),
                  outcomes("skipped"),
                  millis);
      System.out.println("a burst of " + removes + " REMOVEs, one node frozen: " + seen);
      assertThat(outcomes("delivered")).as("healthy pushes, " + seen).isEqualTo(removes);
      assertThat(healthyReleases).as(seen).hasValue(removes);
      assertThat(outcomes("timed_out") + outcomes("failed"))
          .as("waits for the frozen node: at most one per REMOVE thread, " + seen)
          .isBetween(1.0, (double) threads);
      assertThat(outcomes("skipped"))
          .as("the frozen node's other pushes, " + seen)
          .isEqualTo(removes - outcomes("timed_out") - outcomes("failed"));
    }
  }

  /**
   * A REMOVE sends to an idle node's lane from its own thread; a second REMOVE for that node while
   * the first send is in flight waits in the lane, and is sent once the first is answered (handed
   * to a sender thread), not lost with the first REMOVE's thread going back to its connection.
   */
  @Test
  void aRemoveQueuedBehindAnotherRemovesOwnSendIsDeliveredAfterIt() throws Exception {
    CountDownLatch firstArrived = new CountDownLatch(1);
    CountDownLatch answerFirst = new CountDownLatch(1);
    List<String> received = java.util.Collections.synchronizedList(new ArrayList<>());
    try (RpcServer node =
            server(
                "slow",
                (session, frame) -> {
                  ReleaseRequest.decode(frame.reader(), session.agreedMinor())
                      .releases()
                      .forEach(r -> received.add(r.key()));
                  if (firstArrived.getCount() > 0) {
                    firstArrived.countDown();
                    try {
                      answerFirst.await(); // the first send stays in flight until told
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                  session.reply(frame, new BodyWriter());
                });
        ReleasePusher pusher = new ReleasePusher("pool", PoolSecrets.none(), pushes, LONG_QUIET)) {
      String at = node.endpoint().toString();
      ExecutorService removers = Executors.newFixedThreadPool(2);
      try {
        Future<?> first =
            removers.submit(() -> pusher.push(Map.of(at, List.of(new Release("a", 1, true))), 1));
        assertThat(firstArrived.await(1, TimeUnit.MINUTES)).isTrue();
        AtomicReference<Thread> second = new AtomicReference<>();
        Future<?> queued =
            removers.submit(
                () -> {
                  second.set(Thread.currentThread());
                  pusher.push(Map.of(at, List.of(new Release("b", 1, true))), 1);
                });
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while ((second.get() == null || second.get().getState() != Thread.State.TIMED_WAITING)
            && System.nanoTime() < deadline) {
          Thread.sleep(1); // polling an observable condition: the second REMOVE waits in the lane
        }
        assertThat(received).as("the second waits behind the first send").containsExactly("a");
        answerFirst.countDown();
        first.get(1, TimeUnit.MINUTES);
        queued.get(1, TimeUnit.MINUTES);
      } finally {
        answerFirst.countDown();
        removers.shutdownNow();
      }
      assertThat(received).containsExactly("a", "b");
      assertThat(outcomes("delivered")).isEqualTo(2);
      assertThat(outcomes("timed_out") + outcomes("failed") + outcomes("skipped")).isZero();
    }
  }

  /**
   * A REMOVE still being answered while the master shuts down pushes nothing once the pusher is
   * closed: it opens no connection that nothing would close, and counts the push as skipped.
   */
  @Test
  void aPushAfterCloseOpensNoConnectionAndIsSkipped() throws Exception {
    AtomicInteger released = new AtomicInteger();
    try (RpcServer node =
        server(
            "healthy",
            (session, frame) -> {
              released.addAndGet(
                  ReleaseRequest.decode(frame.reader(), session.agreedMinor()).releases().size());
              session.reply(frame, new BodyWriter());
            })) {
      Map<String, List<Release>> toNode =
          Map.of(node.endpoint().toString(), List.of(new Release("k", 1, true)));
      ReleasePusher pusher = new ReleasePusher("pool", PoolSecrets.none(), pushes, LONG_QUIET);
      pusher.push(toNode, 1);
      assertThat(outcomes("delivered")).isEqualTo(1);
      pusher.close();
      pusher.push(toNode, 1);
      assertThat(outcomes("skipped")).isEqualTo(1);
      assertThat(outcomes("delivered")).as("nothing sent after close").isEqualTo(1);
      assertThat(released).hasValue(1);
    }
  }

  /**
   * More REMOVEs at once than a frozen node's lane holds: the overflow is skipped at once, not
   * queued, so at most one send in flight and the lane's {@link ReleasePushLimits#waitingPerNode}
   * behind it (twice that, as the send in flight may carry a full lane) wait for the frozen node.
   * With a lane of 8 set in the limits, not today's 64: the bound is the one configured.
   */
  @Test
  void removesBeyondAFrozenNodesLaneAreSkippedNotQueued() throws Exception {
    ReleasePushLimits limits = LONG_QUIET.withWaitingPerNode(8);
    int removes = 4 * limits.waitingPerNode();
    CountDownLatch thaw = new CountDownLatch(1);
    try (RpcServer frozen =
            server(
                "frozen",
                (session, frame) -> {
                  try {
                    thaw.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  ReleaseRequest.decode(frame.reader(), session.agreedMinor());
                  session.reply(frame, new BodyWriter());
                });
        ReleasePusher pusher = new ReleasePusher("pool", PoolSecrets.none(), pushes, limits)) {
      String frozenAt = frozen.endpoint().toString();
      ExecutorService removers = Executors.newFixedThreadPool(removes);
      CountDownLatch ready = new CountDownLatch(removes);
      CountDownLatch go = new CountDownLatch(1);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < removes; i++) {
          Release r = new Release("k" + i, 1, true);
          done.add(
              removers.submit(
                  () -> {
                    ready.countDown();
                    go.await(); // all at once, as many REMOVEs arriving together
                    pusher.push(Map.of(frozenAt, List.of(r)), 1);
                    return null;
                  }));
        }
        ready.await(1, TimeUnit.MINUTES);
        go.countDown();
        for (Future<?> f : done) {
          f.get(5, TimeUnit.MINUTES);
        }
      } finally {
        removers.shutdownNow();
        thaw.countDown();
      }
      String seen =
          "timed_out=%s failed=%s skipped=%s delivered=%s"
              .formatted(
                  outcomes("timed_out"),
                  outcomes("failed"),
                  outcomes("skipped"),
                  outcomes("delivered"));
      System.out.println("a frozen node's lane under " + removes + " REMOVEs at once: " + seen);
      assertThat(outcomes("timed_out") + outcomes("failed") + outcomes("delivered"))
          .as("pushes that waited for the frozen node, " + seen)
          .isBetween(1.0, 2.0 * limits.waitingPerNode() + 1);
      assertThat(outcomes("skipped"))
          .as(seen)
          .isEqualTo(removes - outcomes("timed_out") - outcomes("failed") - outcomes("delivered"));
    }
  }

  /**
   * A node closes a connection idle past its idle timeout; the pusher opens a kept connection anew
   * once it was unused for its own, shorter, time, so the push after a quiet spell is delivered
   * rather than failed on a connection the node had closed.
   */
  @Test
  void aConnectionTheNodeClosedForIdlenessIsNotUsedForTheNextPush() throws Exception {
    PrometheusRegistry serverMetrics = new PrometheusRegistry();
    AtomicInteger released = new AtomicInteger();
    try (RpcServer node =
            server(
                "idle-closing",
                ServerLimits.DEFAULTS.withDeadlines(
                    Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofMillis(200)),
                serverMetrics,
                (session, frame) -> {
                  released.addAndGet(
                      ReleaseRequest.decode(frame.reader(), session.agreedMinor())
                          .releases()
                          .size());
                  session.reply(frame, new BodyWriter());
                });
        ReleasePusher pusher =
            new ReleasePusher(
                "pool",
                PoolSecrets.none(),
                pushes,
                LONG_QUIET.withKeptIdle(Duration.ofMillis(100)))) {
      Map<String, List<Release>> toNode =
          Map.of(node.endpoint().toString(), List.of(new Release("k", 1, true)));
      pusher.push(toNode, 1);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (closedForIdleness(serverMetrics) == 0) {
        assertThat(System.nanoTime())
            .as("the node closes the idle connection within 30 s")
            .isLessThan(deadline);
        Thread.sleep(20); // polling an observable condition with a deadline
      }
      pusher.push(toNode, 1);
      assertThat(outcomes("delivered")).as("failed: %s", outcomes("failed")).isEqualTo(2);
      assertThat(released).hasValue(2);
    }
  }

  private static double closedForIdleness(PrometheusRegistry metrics) {
    return metrics.scrape().stream()
        .filter(m -> m.getMetadata().getPrometheusName().equals("kvpool_connections_closed"))
        .flatMap(m -> ((CounterSnapshot) m).getDataPoints().stream())
        .filter(d -> "idle".equals(d.getLabels().get("reason")))
        .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue)
        .sum();
  }

  private static RpcServer server(String name, RpcServer.RequestHandler handler) throws Exception {
    return server(name, ServerLimits.DEFAULTS, new PrometheusRegistry(), handler);
  }

  private static RpcServer server(
      String name,
      ServerLimits limits,
      PrometheusRegistry metrics,
      RpcServer.RequestHandler handler)
      throws Exception {
    RpcServer s =
        new RpcServer(
            name,
            "127.0.0.1",
            0,
            new RpcServer.Identity(VersionInfo.CURRENT, Role.STORAGE, () -> "pool", name),
            handler,
            limits,
            PoolSecrets.none(),
            metrics);
    s.start();
    return s;
  }
}
