package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.MasterStatus;
import io.kvpool.cli.AdminApi;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.KvPoolClient;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A burst of REMOVEs from several clients while one storage node is frozen (SIGSTOP), with real
 * processes: the master pushes each REMOVE's releases to the holders before answering (RELEASE).
 * Every push to a healthy node is delivered (with a pusher whose four senders waited behind the
 * frozen node, eight removers got some of them timed out); the frozen node costs each remover the
 * push's second at most once per quiet second, its other pushes are skipped, and it takes the
 * releases by heartbeat once it runs again.
 */
class FrozenNodeRemovesIT {
  private static final int VALUES = 600;
  private static final int REMOVERS = 8;

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          // a node TTL far longer than the burst: the frozen node stays ALIVE, so its pushes are
          // tried
          b -> b.storageNodes(3).memoryPerNode("64MiB").nodeTtl("60s").heartbeat("300ms"));

  @Test
  void pushesToHealthyNodesAreDeliveredAndTheFrozenNodeIsSkipped() throws Exception {
    KvPoolClient client = pool.newClient("it-frozen-removes");
    SplittableRandom random = new SplittableRandom(45);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < VALUES; i++) {
      keys.add("frozen/" + i);
      client.put(keys.get(i), Values.random(4096, random), 1);
    }
    StorageNodeProcess frozen = pool.pool().storageNode("node-2");
    long onFrozen = replicasOn("node-2");
    assertThat(onFrozen).as("objects on the node to freeze").isGreaterThan(VALUES / 6);
    AtomicLong slowest = new AtomicLong();
    long started;
    long elapsed;
    frozen.process().suspend();
    try {
      started = System.nanoTime();
      ExecutorService removers = Executors.newFixedThreadPool(REMOVERS);
      try {
        List<Future<Integer>> removed = new ArrayList<>();
        for (int r = 0; r < REMOVERS; r++) {
          int first = r;
          removed.add(
              removers.submit(
                  () -> {
                    int n = 0;
                    for (int i = first; i < VALUES; i += REMOVERS) {
                      long t0 = System.nanoTime();
                      n += client.remove(keys.get(i)) ? 1 : 0;
                      slowest.accumulateAndGet(System.nanoTime() - t0, Math::max);
                    }
                    return n;
                  }));
        }
        int total = 0;
        for (Future<Integer> f : removed) {
          total += f.get(5, TimeUnit.MINUTES);
        }
        assertThat(total).as("every REMOVE answered removed").isEqualTo(VALUES);
      } finally {
        removers.shutdownNow();
      }
      elapsed = System.nanoTime() - started;
    } finally {
      frozen.process().resume();
    }
    long delivered = pushes("delivered");
    long timedOut = pushes("timed_out");
    long failed = pushes("failed");
    long skipped = pushes("skipped");
    String seen =
        String.format(
            "%d removes (%d on the frozen node) in %d ms, slowest %d ms: delivered %d, timed_out"
                + " %d, failed %d, skipped %d",
            VALUES,
            onFrozen,
            TimeUnit.NANOSECONDS.toMillis(elapsed),
            TimeUnit.NANOSECONDS.toMillis(slowest.get()),
            delivered,
            timedOut,
            failed,
            skipped);
    System.out.println(seen);
    assertThat(delivered).as("pushes to the healthy nodes, " + seen).isEqualTo(VALUES - onFrozen);
    assertThat(timedOut + failed + skipped)
        .as("pushes to the frozen node, " + seen)
        .isEqualTo(onFrozen);
    // one wait per remover and quiet second at most: the rest of the frozen node's pushes skip
    long quietSeconds = TimeUnit.NANOSECONDS.toSeconds(elapsed) + 1;
    assertThat(timedOut + failed)
        .as("waits for the frozen node, " + seen)
        .isLessThanOrEqualTo(REMOVERS * (quietSeconds + 1));
    assertThat(skipped).as(seen).isPositive();

    AdminApi frozenAdmin = new AdminApi(frozen.adminAddress());
    Eventually.await(
        java.time.Duration.ofSeconds(60),
        "the resumed node holds none of the removed objects (its releases came by heartbeat)",
        () -> frozenAdmin.status().path("objects").asLong() == 0,
        () -> "objects " + frozenAdmin.status().path("objects"));
  }

  private long replicasOn(String nodeId) {
    MasterStatus status = pool.masterAdmin().masterStatus();
    return status.nodes().stream()
        .filter(n -> n.id().equals(nodeId))
        .findFirst()
        .orElseThrow()
        .replicas();
  }

  private long pushes(String outcome) {
    String metrics = pool.masterAdmin().text("/metrics");
    Matcher m =
        Pattern.compile("(?m)^kvpool_release_pushes_total\\{outcome=\"" + outcome + "\"} (\\S+)$")
            .matcher(metrics);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }
}
