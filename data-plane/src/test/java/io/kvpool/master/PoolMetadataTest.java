package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.InventoryEntry;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.SliceGrant;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoolMetadataTest {
  private static final int VALUE = 64 << 10;

  @Test
  void crossingTheHighWatermarkEvictsLeastRecentlyUsedFirst() {
    PoolFixture f = new PoolFixture(0.90, 0.10).node("a", 1 << 20);
    for (int i = 0; i < 14; i++) {
      f.put("k" + i, VALUE, 1);
      f.advance(Duration.ofMillis(10));
    }
    f.pool.getReplicas(List.of("k0")); // k0 becomes most recently used (and leased)
    f.advance(Duration.ofSeconds(6)); // lease over
    assertThat(f.counters.evictions()).isZero();
    f.put("k14", VALUE, 1); // 15 x 64 KiB = 960 KiB > 90% of 1 MiB
    assertThat(f.counters.evictions()).isGreaterThan(0);
    assertThat(f.exists("k1")).as("least recently used goes first").isFalse();
    assertThat(f.exists("k0")).as("recently read survives").isTrue();
    assertThat(f.exists("k14")).isTrue();
    assertThat(f.pool.snapshot().usedBytes()).isLessThanOrEqualTo((long) (0.9 * (1 << 20)));
  }

  @Test
  void leasedPinnedAndPendingObjectsAreNeverEvicted() {
    PoolFixture f = new PoolFixture(0.90, 0.50).node("a", 1 << 20);
    f.put("leased", VALUE, 1);
    f.pool.getReplicas(List.of("leased"));
    f.put("pinned", VALUE, 1);
    f.pool.pin("pinned", true);
    assertThat(f.start("pending", VALUE, 1).status()).isEqualTo(ErrorCode.OK);
    for (int i = 0; i < 12; i++) {
      f.put("plain" + i, VALUE, 1);
    }
    // everything evictable goes; a put that cannot fit fails instead of touching protected objects
    for (int i = 0; i < 40; i++) {
      f.start("more" + i, VALUE, 1);
    }
    assertThat(f.counters.evictions()).isGreaterThan(0);
    assertThat(f.exists("leased")).isTrue();
    assertThat(f.exists("pinned")).isTrue();
    assertThat(f.pool.putEnd(List.of("pending"))).containsExactly(ErrorCode.OK);
  }

  @Test
  void allocationFailureTriggersEvictionEvenBelowTheWatermark() {
    PoolFixture f = new PoolFixture(1.0, 0.10).node("a", 1 << 20);
    for (int i = 0; i < 16; i++) {
      f.put("k" + i, VALUE, 1);
    }
    assertThat(f.start("one-more", VALUE, 1).status()).isEqualTo(ErrorCode.OK);
    assertThat(f.counters.evictions()).as("a round frees 10% of the used 1 MiB: two values").isEqualTo(2);
    assertThat(f.exists("k0")).isFalse();
  }

  @Test
  void readLeaseBlocksRemoveUntilItExpires() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20);
    f.put("k", 100, 1);
    ReplicaListResult r = f.pool.getReplicas(List.of("k")).get(0);
    assertThat(r.leaseMillis()).isEqualTo(5000);
    assertThat(f.pool.remove(List.of("k"))).containsExactly(ErrorCode.OBJECT_LEASED);
    assertThat(f.pool.removeAll()).isZero();
    f.advance(Duration.ofMillis(5001));
    assertThat(f.pool.remove(List.of("k"))).containsExactly(ErrorCode.OK);
    assertThat(f.pool.snapshot().usedBytes()).isZero();
  }

  @Test
  void pendingObjectsAreInvisibleAndRevokedAfterTheTimeout() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20);
    assertThat(f.start("k", 1000, 1).status()).isEqualTo(ErrorCode.OK);
    assertThat(f.exists("k")).isFalse();
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(f.start("k", 1000, 1).status()).isEqualTo(ErrorCode.ALREADY_EXISTS);
    f.advance(Duration.ofSeconds(31));
    f.pool.tick();
    assertThat(f.pool.snapshot().objectCount()).isZero();
    assertThat(f.pool.snapshot().usedBytes()).isZero();
    assertThat(f.pool.putEnd(List.of("k"))).containsExactly(ErrorCode.NOT_FOUND);
  }

  @Test
  void revokedRangeIsReusedOnlyAfterItsGrantExpired() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20);
    ReplicaGrant g = f.start("late", 1000, 1).replicas().get(0);
    f.pool.putRevoke(List.of("late"));
    f.put("next", 1000, 1);
    long nextOffset = f.pool.getReplicas(List.of("next")).get(0).replicas().get(0).slices().get(0).offset();
    assertThat(nextOffset).as("a late writer with the old grant cannot hit the new object")
        .isNotEqualTo(g.slices().get(0).offset());
    f.advance(Duration.ofSeconds(31));
    f.pool.heartbeat("a");
    f.pool.tick();
    assertThat(f.pool.snapshot().usedBytes()).isEqualTo(SegmentAllocator.blockSize(1000));
  }

  @Test
  void revokeFreesAPendingPutButNotACompleteOne() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20);
    f.start("p", 1000, 1);
    f.put("c", 1000, 1);
    assertThat(f.pool.putRevoke(List.of("p", "c", "x")))
        .containsExactly(ErrorCode.OK, ErrorCode.INVALID_STATE, ErrorCode.NOT_FOUND);
    assertThat(f.exists("c")).isTrue();
  }

  @Test
  void silentNodeIsDeclaredDeadAndItsObjectsRepairedFromSurvivors() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20).node("b", 1 << 20).node("c", 1 << 20);
    PutStartResult started = f.start("k", 1000, 2);
    f.pool.putEnd(List.of("k"));
    f.put("single", 1000, 1);
    String lostNode = started.replicas().get(0).nodeId();
    f.advance(Duration.ofSeconds(11));
    for (String n : List.of("a", "b", "c")) {
      if (!n.equals(lostNode)) {
        f.pool.heartbeat(n);
      }
    }
    List<RepairTask> tasks = f.pool.tick();
    assertThat(f.pool.heartbeat(lostNode).known()).as("a dead node must register again").isFalse();
    assertThat(tasks).hasSize(1);
    RepairTask t = tasks.get(0);
    assertThat(t.source().nodeId()).isEqualTo(started.replicas().get(1).nodeId());
    assertThat(t.target().nodeId()).isNotIn(lostNode, t.source().nodeId());
    assertThat(f.pool.tick()).as("one copy in flight at a time").isEmpty();
    f.pool.repairDone(t, true);
    assertThat(f.pool.getReplicas(List.of("k")).get(0).replicas()).hasSize(2);
    assertThat(f.counters.repairs()).isEqualTo(1);
  }

  @Test
  void objectsOnlyOnADeadNodeAreLost() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20);
    f.put("k", 1000, 1);
    f.advance(Duration.ofSeconds(11));
    f.pool.tick();
    assertThat(f.exists("k")).isFalse();
    assertThat(f.counters.objectsLost()).isEqualTo(1);
    assertThat(f.pool.stats().aliveNodes()).isZero();
  }

  @Test
  void reRegistrationKeepsOnlyReplicasInTheInventory() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20);
    PutStartResult kept = f.start("kept", 1000, 1);
    f.pool.putEnd(List.of("kept"));
    f.put("gone", 1000, 1);
    SliceGrant g = kept.replicas().get(0).slices().get(0);
    f.pool.register(new RegisterNode("a", "127.0.0.1:1", List.of(new SegmentInfo(0, 1 << 20)),
        List.of(new InventoryEntry("kept", g.segmentId(), g.offset(), g.length(), 0, 1000, 0))), VersionInfo.CURRENT);
    assertThat(f.exists("kept")).isTrue();
    assertThat(f.exists("gone")).isFalse();
    assertThat(f.pool.snapshot().usedBytes()).isEqualTo(SegmentAllocator.blockSize(1000));
  }

  @Test
  void inventoryOfUnknownObjectsIsAdoptedAfterAMasterRestart() {
    PoolFixture f = new PoolFixture(0.9, 0.1);
    f.pool.register(new RegisterNode("a", "127.0.0.1:1", List.of(new SegmentInfo(0, 1 << 20)),
        List.of(new InventoryEntry("old", 0, 4096, 500, 0, 500, 77))), VersionInfo.CURRENT);
    ReplicaListResult r = f.pool.getReplicas(List.of("old")).get(0);
    assertThat(r.status()).isEqualTo(ErrorCode.OK);
    assertThat(r.checksum()).isEqualTo(77);
    assertThat(r.replicas().get(0).slices()).containsExactly(new Slice(0, 4096, 500, 0));
  }

  @Test
  void drainMovesObjectsOffTheNode() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 1 << 20).node("b", 1 << 20);
    for (int i = 0; i < 10; i++) {
      f.put("k" + i, 1000, 1);
    }
    f.pool.drain("a");
    for (int round = 0; round < 5; round++) {
      f.pool.tick().forEach(t -> f.pool.repairDone(t, true));
    }
    PoolSnapshot s = f.pool.snapshot();
    PoolSnapshot.Node a = s.nodes().stream().filter(n -> n.id().equals("a")).findFirst().orElseThrow();
    assertThat(a.state()).isEqualTo("DRAINING");
    assertThat(a.usedBytes()).isZero();
    for (int i = 0; i < 10; i++) {
      assertThat(f.pool.getReplicas(List.of("k" + i)).get(0).replicas()).extracting(x -> x.nodeId()).containsExactly("b");
    }
  }
}
