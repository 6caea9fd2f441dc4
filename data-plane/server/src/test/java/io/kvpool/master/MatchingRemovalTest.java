package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.RemoveMatchingReply;
import io.kvpool.protocol.RemoveMatchingRequest;
import io.kvpool.protocol.ReplicaGrant;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * REMOVE_MATCHING on the master's metadata with many objects: every matching object goes, however
 * often a request stops at its time budget (the next one goes on where it stopped), and releases
 * name exactly the removed objects' holders.
 */
class MatchingRemovalTest {
  private static final int OBJECTS = 200_000;

  private static PoolFixture pool(int objects) {
    PoolFixture f = new PoolFixture(MasterConfig.defaults("match"));
    for (int i = 0; i < 3; i++) {
      f.node("n" + i, 512L << 20);
    }
    f.settle();
    List<PutStartItem> batch = new ArrayList<>();
    for (int i = 0; i < objects; i++) {
      batch.add(new PutStartItem("req-" + (i % 10) + "/block/" + i, 1024, 0, 1, i, List.of()));
      if (batch.size() == 1000 || i == objects - 1) {
        commit(f, batch);
        batch.clear();
      }
    }
    return f;
  }

  @Test
  void everyMatchingObjectGoesAndOnlyThose() {
    PoolFixture f = pool(OBJECTS);
    AtomicLong released = new AtomicLong();
    Counter outcomes = outcomes();
    MatchingRemoval removal =
        new MatchingRemoval(
            (byNode, view) -> byNode.values().forEach(l -> released.addAndGet(l.size())),
            MatchingRemoval.MATCH_BUDGET,
            outcomes);

    long started = System.nanoTime();
    RemoveMatchingReply none = removal.serve(f.pool, new RemoveMatchingRequest("^no-such-key$"));
    long scanMillis = (System.nanoTime() - started) / 1_000_000;
    started = System.nanoTime();
    long removed = 0;
    RemoveMatchingReply r;
    int calls = 0;
    do {
      r = removal.serve(f.pool, new RemoveMatchingRequest("^req-3/"));
      removed += r.removed();
      calls++;
    } while (!r.finished() && calls < 100);
    long removeMillis = (System.nanoTime() - started) / 1_000_000;
    System.out.printf(
        "remove_matching: %d keys matched without a hit in %d ms%s; %d of them removed in %d ms"
            + " (%d calls)%n",
        OBJECTS,
        scanMillis,
        none.finished() ? "" : " (stopped at its budget)",
        removed,
        removeMillis,
        calls);

    assertThat(removed).isEqualTo(OBJECTS / 10);
    assertThat(released.get()).isEqualTo(OBJECTS / 10); // one replica each
    assertThat(f.exists("req-3/block/3")).isFalse();
    assertThat(f.exists("req-4/block/4")).isTrue();
    assertThat(f.pool.stats().objects()).isEqualTo(OBJECTS - OBJECTS / 10);
    assertThat(outcomes.labelValues("removed").get()).isEqualTo(OBJECTS / 10);
    assertThat(outcomes.labelValues("kept").get()).isZero();
  }

  @Test
  void aRequestOutOfTimeStopsAndTheNextGoesOnWhereItStopped() {
    PoolFixture f = pool(5_000);
    MatchingRemoval removal = new MatchingRemoval((byNode, view) -> {}, Duration.ZERO, outcomes());
    long removed = 0;
    int calls = 0;
    RemoveMatchingReply r;
    do {
      r = removal.serve(f.pool, new RemoveMatchingRequest("/block/[0-9]*7$"));
      removed += r.removed();
      calls++;
    } while (!r.finished() && calls < 1_000);
    assertThat(calls).as("a zero budget looks at a few keys per request").isGreaterThan(10);
    assertThat(r.finished()).isTrue();
    assertThat(removed).isEqualTo(500);
    assertThat(f.exists("req-7/block/17")).isFalse();
    assertThat(f.exists("req-8/block/18")).isTrue();
  }

  private static Counter outcomes() {
    return Counter.builder()
        .name("kvpool_removed_by_pattern_total")
        .labelNames("outcome")
        .register(new PrometheusRegistry());
  }

  private static void commit(PoolFixture f, List<PutStartItem> items) {
    List<PutStartResult> started = f.pool.putStart(items, PoolFixture.PUT_END_WRITER);
    List<PutEndItem> ends = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      PutStartResult r = started.get(i);
      assertThat(r.status()).isEqualTo(ErrorCode.OK);
      ReplicaGrant g = r.replicas().get(0);
      Receipt receipt =
          new Receipt(
              g.nodeId(),
              f.nodes.get(g.nodeId()).key.receipt(items.get(i).key(), r.generation(), 1024, 0));
      ends.add(new PutEndItem(items.get(i).key(), r.generation(), List.of(receipt)));
    }
    f.pool.putEnd(ends);
  }
}
