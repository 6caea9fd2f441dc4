package io.kvpool.master;

import static io.kvpool.master.PoolFixture.NODE_COMMIT_WRITER;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.admin.ObjectScan;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.SegmentInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 28: the master's gauges (objects, pending, under-replicated) and counters (lost, evictions)
 * are the state's own. Each failure path ends with the gauges compared to a full scan of the object
 * table.
 */
class GaugesTest {
  private static final long MIB = 1 << 20;

  private static void assertGaugesMatchScan(PoolFixture f) {
    PoolSnapshot s = f.pool.snapshot();
    ObjectScan scan = f.pool.scan();
    assertThat(s.objectCount()).as("objects").isEqualTo(scan.objects());
    assertThat(s.pendingObjects()).as("pending").isEqualTo(scan.pending());
    assertThat(s.underReplicated()).as("under-replicated").isEqualTo(scan.underReplicated());
  }

  private static void killAndDeclareDead(PoolFixture f, String node) {
    f.nodes.remove(node);
    f.advance(f.config.nodeTtl().plusSeconds(1));
    f.heartbeats();
    f.tickUntilQuiet();
  }

  /**
   * The outside tester's case: one of two nodes down, every object at 1 of 2 replicas, the gauge
   * said 0.
   */
  @Test
  void objectsThatCannotBeRepairedAreCountedUnderReplicated() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 16 * MIB).node("b", 16 * MIB).settle();
    for (int i = 0; i < 50; i++) {
      f.put("k" + i, 1000, 2);
    }
    assertGaugesMatchScan(f);
    killAndDeclareDead(f, "b");
    assertThat(f.pool.snapshot().underReplicated())
        .as("no node can take a second copy")
        .isEqualTo(50);
    assertGaugesMatchScan(f);
    f.node("c", 16 * MIB);
    f.tickUntilQuiet();
    assertThat(f.pool.snapshot().underReplicated()).as("copied once a node joined").isZero();
    assertThat(f.replicas("k7")).isEqualTo(2);
    assertGaugesMatchScan(f);
  }

  /**
   * A node kill on a 90 % full pool: repairs never make eviction take other objects for their
   * copies.
   */
  @Test
  void repairsOnAFullPoolEvictNothingAndWhatTheyCannotCopyStaysCounted() {
    PoolFixture f =
        new PoolFixture(0.9, 0.1)
            .node("a", 16 * MIB)
            .node("b", 16 * MIB)
            .node("c", 16 * MIB)
            .settle();
    int stored = 0;
    while (f.pool.snapshot().usedBytes() + 2 * 256 * 1024
        < 0.88 * f.pool.snapshot().capacityBytes()) {
      f.put("k" + stored++, 256 * 1024, 2);
    }
    killAndDeclareDead(f, "c");
    assertThat(f.evictions()).as("nothing evicted to make room for copies").isZero();
    assertThat(f.pool.snapshot().usedBytes())
        .isLessThanOrEqualTo((long) (0.9 * f.pool.snapshot().capacityBytes()));
    assertThat(f.pool.snapshot().underReplicated())
        .as("what did not fit stays counted")
        .isPositive();
    assertGaugesMatchScan(f);
    int readable = 0;
    for (int i = 0; i < stored; i++) {
      readable += f.exists("k" + i) ? 1 : 0;
    }
    assertThat(readable).as("every object still readable").isEqualTo(stored);
    assertThat(MasterCounters.value(f.counters.objectsLost)).isZero();
  }

  /**
   * The sequence behind the outside tester's 75 NOT_FOUND objects: puts committed by their nodes,
   * one node's COMMITs lost with its link, its re-registration's inventory never delivered (the
   * master's body budget was exhausted), the node declared dead. Every acknowledged put stays
   * readable throughout, none is counted lost, and the gauges match.
   */
  @Test
  void aNodeWhoseCommitsAndReRegistrationNeverArriveHidesNoAcknowledgedPut() {
    PoolFixture f =
        new PoolFixture(0.9, 0.1)
            .node("a", 16 * MIB)
            .node("b", 16 * MIB)
            .node("c", 16 * MIB)
            .settle();
    f.pool.commitWaits(Duration.ofSeconds(60), Duration.ZERO); // b's COMMITs never come
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      String key = "k" + i;
      PutStartResult p = f.start(NODE_COMMIT_WRITER, key, 1000, 2);
      for (var g : p.replicas()) {
        if (g.nodeId().equals("b")) {
          f.write(key, p, g, 1000, 2); // replied committed = 1; its COMMIT is lost with the link
        } else {
          f.commit(key, p, g, 1000, 2);
        }
      }
      keys.add(key);
    }
    PoolFixture.SimNode b = f.nodes.get("b");
    b.connectionOpen = false; // the link is cut
    f.pool.register(
        new RegisterNode("b", "b:1", List.of(new SegmentInfo(0, b.bytes)), 0, true),
        VersionInfo.CURRENT,
        new Object(),
        () -> true); // the inventory that should follow never arrives
    for (String key : keys) {
      assertThat(f.pool.getReplicas(List.of(key)).get(0).status()).as(key).isEqualTo(ErrorCode.OK);
    }
    killAndDeclareDead(f, "b");
    for (String key : keys) {
      assertThat(f.exists(key)).as(key).isTrue();
      assertThat(f.replicas(key)).as(key).isEqualTo(2);
    }
    assertThat(f.pool.snapshot().pendingObjects()).isZero();
    assertThat(MasterCounters.value(f.counters.objectsLost)).isZero();
    assertGaugesMatchScan(f);
  }

  /** A put readable from its nodes' commits counts as lost when every node holding it dies. */
  @Test
  void anAcknowledgedPendingPutWhoseNodesAllDieIsCountedLost() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 16 * MIB).node("b", 16 * MIB).settle();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    f.write("k", p, p.replicas().get(1), 1000, 2);
    f.nodes.clear();
    f.advance(f.config.nodeTtl().plusSeconds(1));
    f.tickUntilQuiet();
    assertThat(f.exists("k")).isFalse();
    assertThat(MasterCounters.value(f.counters.objectsLost)).isEqualTo(1);
    assertGaugesMatchScan(f);
  }
}
