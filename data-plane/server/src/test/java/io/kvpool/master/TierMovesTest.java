package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.DiskDrop;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.WriteReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Eviction with disk tiers: replicas move to disk instead of going, count toward R, and come back
 * after a restart.
 */
class TierMovesTest {
  private static final int VALUE = 64 << 10;
  private static final long MIB = 1 << 20;

  private static PoolFixture filled(int values, int replicas, String... nodes) {
    PoolFixture f = new PoolFixture(0.90, 0.10);
    for (String n : nodes) {
      f.diskNode(n, MIB, 64 * MIB);
    }
    f.settle();
    for (int i = 0; i < values; i++) {
      f.put("k" + i, VALUE, replicas);
      f.advance(Duration.ofMillis(10));
    }
    f.advance(Duration.ofSeconds(6)); // no read lease left
    f.tickUntilQuiet();
    f.heartbeats();
    return f;
  }

  @Test
  void evictionMovesReplicasToDiskAndDeletesNothing() {
    PoolFixture f = filled(40, 1, "a"); // 40 x 64 KiB on a node of 1 MiB
    assertThat(f.evictions()).isZero();
    assertThat(MasterCounters.value(f.counters.spills)).isPositive();
    assertThat(f.pool.snapshot().usedBytes()).isLessThanOrEqualTo((long) (0.9 * MIB));
    for (int i = 0; i < 40; i++) {
      assertThat(f.exists("k" + i)).as("k" + i).isTrue();
      assertThat(f.replicas("k" + i)).isEqualTo(1);
    }
    ReplicaListResult k0 = f.pool.getReplicas(List.of("k0"), 3).get(0);
    assertThat(k0.replicas()).singleElement().satisfies(r -> assertThat(r.onDisk()).isTrue());
    assertThat(f.nodes.get("a").objects.get("k0").onDisk()).as("the node was told").isTrue();
    assertThat(f.pool.getReplicas(List.of("k0"), 2).get(0).status())
        .as("a 2.2 client cannot read disk replicas: a miss for it")
        .isEqualTo(ErrorCode.NOT_FOUND);
  }

  @Test
  void bothReplicasMoveAndStillCountTowardR() {
    PoolFixture f = filled(30, 2, "a", "b");
    assertThat(f.evictions()).isZero();
    assertThat(f.pool.snapshot().underReplicated()).isZero();
    ReplicaListResult k0 = f.pool.getReplicas(List.of("k0"), 3).get(0);
    assertThat(k0.replicas()).hasSize(2).allSatisfy(r -> assertThat(r.onDisk()).isTrue());
  }

  @Test
  void aDiskDropForgetsTheReplicaAndTheLastOneTakesTheObject() {
    PoolFixture f = filled(30, 2, "a", "b");
    long gen = f.pool.getReplicas(List.of("k0"), 3).get(0).generation();
    f.advance(Duration.ofSeconds(6));
    PoolFixture.SimNode a = f.nodes.get("a");
    f.pool.diskDrop(new DiskDrop("a", a.registrationId, List.of(new PutRef("k0", gen))));
    assertThat(f.replicas("k0")).isEqualTo(1);
    assertThat(f.evictions()).isZero();
    f.pool.diskDrop(
        new DiskDrop("a", new byte[16], List.of(new PutRef("k0", gen)))); // another registration
    f.pool.diskDrop(
        new DiskDrop("b", f.nodes.get("b").registrationId, List.of(new PutRef("k0", gen + 1))));
    assertThat(f.replicas("k0")).as("ignored: wrong registration, other generation").isEqualTo(1);
    f.pool.diskDrop(
        new DiskDrop("b", f.nodes.get("b").registrationId, List.of(new PutRef("k0", gen))));
    assertThat(f.exists("k0")).isFalse();
    assertThat(f.evictions()).isEqualTo(1);
  }

  @Test
  void aNewMasterAdoptsDiskReplicasFromTheInventories() {
    PoolFixture f = filled(40, 1, "a");
    long onDisk =
        f.nodes.get("a").objects.values().stream().filter(InventoryObject::onDisk).count();
    assertThat(onDisk).isPositive();
    f.restartMaster();
    f.settle();
    for (int i = 0; i < 40; i++) {
      assertThat(f.exists("k" + i)).as("k" + i).isTrue();
    }
    assertThat(f.pool.getReplicas(List.of("k0"), 3).get(0).replicas().get(0).onDisk()).isTrue();
  }

  @Test
  void aLostNodesReplicasAreRepairedOverTheWatermarkWhenEvictionSpillsToDisk() {
    PoolFixture f = filled(40, 2, "a", "b", "c"); // 40 x 64 KiB x 2 over 3 MiB of memory
    assertThat(MasterCounters.value(f.counters.spills)).isPositive();
    assertThat(f.pool.snapshot().underReplicated()).isZero();
    for (int i = 0; i < 2; i++) { // node c goes silent past its TTL
      f.advance(Duration.ofSeconds(6));
      f.nodes.values().stream().filter(n -> !n.id.equals("c")).forEach(f::heartbeat);
    }
    f.tickUntilQuiet(); // c is DEAD: its replicas are copied

    for (int round = 0; round < 20 && f.pool.snapshot().underReplicated() > 0; round++) {
      f.advance(Duration.ofSeconds(2)); // past the repairs' retry pause
      f.nodes.values().stream().filter(n -> !n.id.equals("c")).forEach(f::heartbeat);
      f.tickUntilQuiet();
    }
    assertThat(f.pool.snapshot().underReplicated())
        .as("copied although memory is at the watermark: eviction spills the coldest to disk")
        .isZero();
    assertThat(f.evictions()).as("nothing deleted to make room").isZero();
    for (int i = 0; i < 40; i++) {
      assertThat(f.replicas("k" + i)).as("k" + i).isEqualTo(2);
    }
  }

  @Test
  void withoutDiskTiersARepairDoesNotTakeThePoolOverItsWatermark() {
    PoolFixture f = new PoolFixture(0.90, 0.10);
    for (String n : List.of("a", "b", "c")) {
      f.node(n, MIB);
    }
    f.settle();
    for (int i = 0; i < 20; i++) {
      f.put("k" + i, VALUE, 2); // 20 x 64 KiB x 2 = 2.5 MiB of 3 MiB: below the watermark
      f.advance(Duration.ofMillis(10));
    }
    for (int i = 0; i < 2; i++) {
      f.advance(Duration.ofSeconds(6));
      f.nodes.values().stream().filter(n -> !n.id.equals("c")).forEach(f::heartbeat);
    }
    f.tickUntilQuiet();
    for (int round = 0; round < 20; round++) {
      f.advance(Duration.ofSeconds(2));
      f.nodes.values().stream().filter(n -> !n.id.equals("c")).forEach(f::heartbeat);
      f.tickUntilQuiet();
    }
    assertThat(f.evictions()).as("no repair evicted anything").isZero();
    assertThat(f.pool.snapshot().usedBytes()).isLessThanOrEqualTo((long) (0.9 * 2 * MIB));
  }

  /** Memory of a 1 MiB node full of values a reader just read: every one under its read lease. */
  private static PoolFixture fullOfLeasedValues(boolean disk) {
    PoolFixture f = new PoolFixture(1.0, 0.10); // no watermark eviction: room is made by puts
    if (disk) {
      f.diskNode("a", MIB, 64 * MIB);
    } else {
      f.node("a", MIB);
    }
    f.settle();
    for (int i = 0; i < 16; i++) {
      f.put("k" + i, VALUE, 1);
      f.advance(Duration.ofMillis(10));
    }
    for (int i = 0; i < 16; i++) {
      assertThat(f.pool.getReplicas(List.of("k" + i), 3).get(0).status()).isEqualTo(ErrorCode.OK);
    }
    return f;
  }

  @Test
  void aPutIntoMemoryFullOfLeasedValuesMovesTheLeastRecentlyUsedToDisk() {
    PoolFixture f = fullOfLeasedValues(true);
    f.put("new", VALUE, 1); // refused with NO_SPACE before leased values could move
    assertThat(f.evictions()).isZero();
    for (int i = 0; i < 16; i++) {
      assertThat(f.replicas("k" + i)).as("k" + i + " still readable").isEqualTo(1);
    }
    ReplicaListResult k0 = f.pool.getReplicas(List.of("k0"), 3).get(0);
    assertThat(k0.replicas()).singleElement().satisfies(r -> assertThat(r.onDisk()).isTrue());
    f.heartbeats();
    assertThat(f.nodes.get("a").objects.get("k0").onDisk()).as("the node was told").isTrue();
    assertThat(f.pool.getReplicas(List.of("k15"), 3).get(0).replicas())
        .singleElement()
        .satisfies(r -> assertThat(r.onDisk()).as("the latest stays in memory").isFalse());
  }

  /**
   * Memory held by puts whose nodes have not committed them yet (their COMMITs lag under load) is
   * not full: a put is answered BUSY, which writers retry, not NO_SPACE, and is taken once they
   * commit.
   */
  @Test
  void aPutIntoMemoryHeldByUncommittedPutsIsAskedToRetryAndTakenOnceTheyCommit() {
    PoolFixture f = new PoolFixture(1.0, 0.10).diskNode("a", MIB, 64 * MIB).settle();
    List<PutStartResult> started = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      PutStartResult r = f.start(WriteReply.COMMIT_MINOR, "k" + i, VALUE, 1);
      assertThat(r.status()).isEqualTo(ErrorCode.OK);
      started.add(r);
    }
    PutStartResult refused = f.start("new", VALUE, 1);
    assertThat(refused.status()).isEqualTo(ErrorCode.BUSY);
    assertThat(refused.message()).contains("in flight").contains("retry shortly");
    for (int i = 0; i < 16; i++) {
      PutStartResult r = started.get(i);
      f.commit("k" + i, r, r.replicas().get(0), VALUE, 1);
    }
    f.put("new", VALUE, 1);
    assertThat(f.replicas("k0")).as("moved to disk, not deleted").isEqualTo(1);
    assertThat(f.evictions()).isZero();
  }

  @Test
  void withoutADiskTierALeaseKeepsItsValueAndThePutIsRefused() {
    PoolFixture f = fullOfLeasedValues(false);
    assertThat(f.start("new", VALUE, 1).status()).isEqualTo(ErrorCode.NO_SPACE);
    assertThat(f.evictions()).isZero();
    f.advance(Duration.ofSeconds(6)); // the leases ran out
    f.put("new", VALUE, 1);
    assertThat(f.evictions()).isEqualTo(1);
  }

  @Test
  void aPutFindsRoomOnOneNodeWhenTheLeastRecentlyUsedValuesAreSpreadOverAll() {
    PoolFixture f = new PoolFixture(1.0, 0.10); // no watermark eviction: room is made by puts
    List<String> ids = List.of("a", "b", "c", "d");
    for (String n : ids) {
      f.diskNode(n, MIB, 64 * MIB);
    }
    f.settle();
    // 16 values of 64 KiB fill each node; the least recently used take turns on the four nodes
    for (int i = 0; i < 16; i++) {
      for (String n : ids) {
        f.put(n + i, VALUE, 1, ids.stream().filter(o -> !o.equals(n)).toArray(String[]::new));
        f.advance(Duration.ofMillis(10));
      }
    }
    // bytes freed anywhere spread over the four nodes: three rounds of 384 KiB left 256-320 KiB
    // on each, and the value of 384 KiB was refused
    f.put("large", 6 * VALUE, 1);
    assertThat(f.evictions()).isZero();
    assertThat(f.replicas("large")).isEqualTo(1);
  }
}
