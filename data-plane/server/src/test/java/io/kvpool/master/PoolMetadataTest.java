package io.kvpool.master;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.PutStartItem;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.RegisterNode;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListResult;
import io.kvpool.protocol.ReplicaLocation;
import io.kvpool.protocol.SegmentInfo;
import io.kvpool.protocol.ServerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PoolMetadataTest {
  private static final int VALUE = 64 << 10;
  private static final long MIB = 1 << 20;

  // ---- eviction ----

  @Test
  void crossingTheHighWatermarkEvictsLeastRecentlyUsedFirst() {
    PoolFixture f = new PoolFixture(0.90, 0.10).node("a", MIB).settle();
    for (int i = 0; i < 14; i++) {
      f.put("k" + i, VALUE, 1);
      f.advance(Duration.ofMillis(10));
    }
    f.pool.getReplicas(List.of("k0")); // k0 becomes most recently used (and leased)
    f.advance(Duration.ofSeconds(6)); // lease over
    assertThat(f.evictions()).isZero();
    f.put("k14", VALUE, 1); // 15 x 64 KiB = 960 KiB > 90% of 1 MiB: the put itself evicts
    assertThat(f.evictions()).isGreaterThan(0);
    assertThat(f.exists("k1")).as("least recently used goes first").isFalse();
    assertThat(f.exists("k0")).as("recently read survives").isTrue();
    assertThat(f.exists("k14")).isTrue();
    assertThat(f.pool.snapshot().usedBytes()).isLessThanOrEqualTo((long) (0.9 * MIB));
  }

  @Test
  void aSampledEvictionTakesOldObjectsAndKeepsTheRecentlyReadOnes() {
    int value = 4 << 10;
    PoolFixture f = new PoolFixture(0.90, 0.10).node("a", 4 * MIB).settle(); // 1,024 values
    int first = 900; // more than Eviction.EXACT_BELOW: victims come from random samples
    for (int i = 0; i < first; i++) {
      f.put("k" + i, value, 1);
      f.advance(Duration.ofMillis(1));
    }
    List<String> read = new ArrayList<>(); // the oldest puts, read since
    for (int i = 0; i < first / 10; i++) {
      read.add("k" + i);
    }
    f.pool.getReplicas(read);
    f.advance(Duration.ofSeconds(6)); // their read leases are over: evictable, recently used
    for (int i = first; i < first + 100; i++) {
      f.put("k" + i, value, 1);
      f.advance(Duration.ofMillis(1));
    }
    assertThat(f.evictions()).isGreaterThan(50);
    assertThat(read).as("recently read").allMatch(f::exists);
    assertThat(f.exists("k" + (first + 99))).as("just put").isTrue();
  }

  @Test
  void aLowerWatermarkTakenLiveEvictsWithoutARestart() {
    PoolFixture f = new PoolFixture(1.0, 0.10).node("a", MIB).settle();
    for (int i = 0; i < 12; i++) {
      f.put("k" + i, VALUE, 1);
      f.advance(Duration.ofMillis(10));
    }
    f.advance(Duration.ofSeconds(6)); // no read lease left
    f.tickUntilQuiet();
    assertThat(f.evictions()).isZero();
    f.pool.updateEviction(0.5, 0.25);
    f.tickUntilQuiet();
    assertThat(f.evictions()).isGreaterThan(0);
    assertThat(f.pool.snapshot().usedBytes()).isLessThan(12L * VALUE);
  }

  @Test
  void leasedPinnedAndPendingObjectsAreNeverEvicted() {
    PoolFixture f = new PoolFixture(0.90, 0.50).node("a", MIB).settle();
    f.put("leased", VALUE, 1);
    f.pool.getReplicas(List.of("leased"));
    f.put("pinned", VALUE, 1);
    f.pool.pin("pinned", true);
    PutStartResult pending = f.start("pending", VALUE, 1);
    assertThat(pending.status()).isEqualTo(ErrorCode.OK);
    for (int i = 0; i < 12; i++) {
      f.put("plain" + i, VALUE, 1);
    }
    for (int i = 0; i < 40; i++) {
      f.start("more" + i, VALUE, 1);
    }
    assertThat(f.evictions()).isGreaterThan(0);
    assertThat(f.exists("leased")).isTrue();
    assertThat(f.exists("pinned")).isTrue();
    Receipt receipt = f.write("pending", pending, pending.replicas().get(0), VALUE, 1);
    assertThat(
            f.pool.putEnd(
                List.of(new PutEndItem("pending", pending.generation(), List.of(receipt)))))
        .containsExactly(ErrorCode.OK);
  }

  @Test
  void allocationFailureTriggersEvictionEvenBelowTheWatermark() {
    PoolFixture f = new PoolFixture(1.0, 0.10).node("a", MIB).settle();
    for (int i = 0; i < 16; i++) {
      f.put("k" + i, VALUE, 1);
    }
    assertThat(f.start("one-more", VALUE, 1).status()).isEqualTo(ErrorCode.OK);
    assertThat(f.evictions()).as("only what the put needs").isEqualTo(1);
  }

  @Test
  void anInfeasiblePutEvictsNothing() {
    PoolFixture f =
        new PoolFixture(1.0, 0.10).node("a", MIB).node("b", MIB).node("c", MIB).settle();
    for (int i = 0; i < 40; i++) {
      f.put("k" + i, VALUE, 1);
    }
    PutStartResult tooMany = f.start("four", VALUE, 4);
    assertThat(tooMany.status()).isEqualTo(ErrorCode.NOT_ENOUGH_NODES);
    assertThat(tooMany.message()).contains("4 replicas requested").contains("3 storage node(s)");
    PutStartResult tooBig = f.start("huge", (int) (2 * MIB), 1);
    assertThat(tooBig.status()).isEqualTo(ErrorCode.NO_SPACE);
    assertThat(f.evictions()).isZero();
    assertThat(f.pool.snapshot().objectCount()).isEqualTo(40);
  }

  // ---- leases, pending puts, revokes ----

  @Test
  void readLeaseBlocksRemoveUntilItExpires() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    f.put("k", 100, 1);
    ReplicaListResult r = f.pool.getReplicas(List.of("k")).get(0);
    assertThat(r.expiresAtMillis()).isEqualTo(f.now.get() + 5000);
    assertThat(r.replicas().get(0).token()).hasSize(16);
    assertThat(f.pool.remove(List.of("k")).statuses()).containsExactly(ErrorCode.OBJECT_LEASED);
    assertThat(f.pool.removeAll()).isZero();
    f.advance(Duration.ofMillis(5001));
    assertThat(f.pool.remove(List.of("k")).statuses()).containsExactly(ErrorCode.OK);
    assertThat(f.pool.snapshot().usedBytes()).isZero();
  }

  @Test
  void pendingPutsAreInvisibleRefuseASecondWriterAndExpire() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    PutStartResult first = f.start("k", 1000, 1);
    assertThat(first.status()).isEqualTo(ErrorCode.OK);
    assertThat(f.exists("k")).isFalse();
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(f.start("k", 1000, 1).status())
        .as("a concurrent put of a pending key")
        .isEqualTo(ErrorCode.PUT_IN_PROGRESS);
    assertThat(f.pool.remove(List.of("k")).statuses()).containsExactly(ErrorCode.PUT_IN_PROGRESS);
    f.advance(Duration.ofSeconds(31));
    f.pool.tick();
    assertThat(f.pool.snapshot().objectCount()).isZero();
    assertThat(f.pool.putEnd(List.of(new PutEndItem("k", first.generation(), List.of()))))
        .containsExactly(ErrorCode.NOT_FOUND);
  }

  @Test
  void aRetriedPutStartWithTheSamePutIdGetsTheSamePut() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    PutStartItem item = new PutStartItem("k", 1000, 5, 2, 42, List.of());
    PutStartResult first = f.pool.putStart(List.of(item), PoolFixture.PUT_END_WRITER).get(0);
    PutStartResult retry = f.pool.putStart(List.of(item), PoolFixture.PUT_END_WRITER).get(0);
    assertThat(retry.status()).isEqualTo(ErrorCode.OK);
    assertThat(retry.generation()).isEqualTo(first.generation());
    assertThat(retry.replicas())
        .extracting(ReplicaGrant::nodeId)
        .containsExactlyElementsOf(first.replicas().stream().map(ReplicaGrant::nodeId).toList());
  }

  @Test
  void avoidedNodesGetNoPlacementWhileOthersCanServe() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).node("c", MIB).settle();
    for (int i = 0; i < 20; i++) {
      PutStartResult r =
          f.pool
              .putStart(
                  List.of(new PutStartItem("k" + i, 1000, 0, 2, i, List.of("b"))),
                  PoolFixture.PUT_END_WRITER)
              .get(0);
      assertThat(r.replicas()).extracting(ReplicaGrant::nodeId).doesNotContain("b");
    }
  }

  @Test
  void aSilentNodeGetsNoPlacementWhileOthersCanServeAndStillTakesWhatNeedsIt() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).node("c", MIB).settle();
    f.heartbeats();
    // b falls silent (frozen or cut off) while a and c keep heartbeating: not dead before the TTL
    for (int s = 0; s < 4; s++) {
      f.advance(Duration.ofSeconds(1));
      f.heartbeat(f.nodes.get("a"));
      f.heartbeat(f.nodes.get("c"));
    }
    for (int i = 0; i < 20; i++) {
      PutStartResult r = f.start("k" + i, 1000, 1);
      assertThat(r.status()).isEqualTo(ErrorCode.OK);
      assertThat(r.replicas()).extracting(ReplicaGrant::nodeId).doesNotContain("b");
    }
    PutStartResult everyNode = f.start("all", 1000, 3);
    assertThat(everyNode.status()).isEqualTo(ErrorCode.OK);
    assertThat(everyNode.replicas())
        .extracting(ReplicaGrant::nodeId)
        .containsExactlyInAnyOrder("a", "b", "c");
    f.heartbeat(f.nodes.get("b")); // heard from again: placed on as before
    Set<String> placed = new HashSet<>();
    for (int i = 0; i < 30; i++) {
      placed.add(f.start("again" + i, 1000, 1).replicas().get(0).nodeId());
    }
    assertThat(placed).contains("b");
  }

  @Test
  void aSilentNodesReplicaIsListedForReadsOnlyWhenNoOtherIs() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).node("c", MIB).settle();
    f.heartbeats();
    f.put("two", 1000, 2, "c"); // on a and b
    f.put("one", 1000, 1, "a", "c"); // on b alone
    // b falls silent (frozen or cut off) while a and c keep heartbeating: not dead before the TTL
    for (int s = 0; s < 4; s++) {
      f.advance(Duration.ofSeconds(1));
      f.heartbeat(f.nodes.get("a"));
      f.heartbeat(f.nodes.get("c"));
    }
    assertThat(f.pool.getReplicas(List.of("two")).get(0).replicas())
        .extracting(ReplicaLocation::nodeId)
        .as("a fresh reader is sent to the node that answers")
        .containsExactly("a");
    assertThat(f.pool.getReplicas(List.of("one")).get(0).replicas())
        .extracting(ReplicaLocation::nodeId)
        .as("the only replica, still listed until the node TTL")
        .containsExactly("b");
    f.heartbeat(f.nodes.get("b")); // heard from again: listed as before
    assertThat(f.pool.getReplicas(List.of("two")).get(0).replicas())
        .extracting(ReplicaLocation::nodeId)
        .containsExactlyInAnyOrder("a", "b");

    f.pool.drain("b"); // a draining node serves reads until its replicas have moved
    for (int s = 0; s < 4; s++) {
      f.advance(Duration.ofSeconds(1));
      f.heartbeat(f.nodes.get("a"));
      f.heartbeat(f.nodes.get("c"));
    }
    PoolSnapshot.Node b =
        f.pool.snapshot().nodes().stream().filter(n -> n.id().equals("b")).findFirst().get();
    assertThat(b.state()).isEqualTo(NodeState.DRAINING);
    assertThat(b.silent()).as("silent in the status").isTrue();
    assertThat(f.pool.getReplicas(List.of("two")).get(0).replicas())
        .extracting(ReplicaLocation::nodeId)
        .as("a silent draining node is not read while another replica is there")
        .containsExactly("a");
  }

  @Test
  void aRepairCopiesToANodeThatStillHeartbeatsRatherThanToASilentOne() {
    PoolFixture f =
        new PoolFixture(0.9, 0.1)
            .node("a", MIB)
            .node("b", MIB)
            .node("c", MIB)
            .node("d", MIB)
            .settle();
    f.heartbeats();
    for (int i = 0; i < 20; i++) {
      f.put("r" + i, 1000, 2, "c", "d"); // on a and b
    }
    // a falls silent now and d 7 s later; at 11 s a is dead (node TTL 10 s) and d silent for 4 s
    for (int second = 1; second <= 11; second++) {
      f.advance(Duration.ofSeconds(1));
      f.heartbeat(f.nodes.get("b"));
      f.heartbeat(f.nodes.get("c"));
      if (second <= 7) {
        f.heartbeat(f.nodes.get("d"));
      }
    }
    f.tickUntilQuiet();
    for (int i = 0; i < 20; i++) {
      assertThat(f.pool.getReplicas(List.of("r" + i)).get(0).replicas())
          .extracting(ReplicaLocation::nodeId)
          .as("replicas of r%d after a died and d fell silent", i)
          .containsExactlyInAnyOrder("b", "c");
    }
  }

  @Test
  void revokeNamesTheGenerationSoItNeverKillsAnotherWritersPut() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    PutStartResult p = f.start("p", 1000, 1);
    f.put("c", 1000, 1);
    assertThat(f.pool.putRevoke(List.of(new PutRef("p", p.generation() + 1))))
        .containsExactly(ErrorCode.NOT_FOUND);
    long c = f.pool.getReplicas(List.of("c")).get(0).generation();
    assertThat(
            f.pool.putRevoke(
                List.of(new PutRef("p", p.generation()), new PutRef("c", c), new PutRef("x", 1))))
        .containsExactly(ErrorCode.OK, ErrorCode.INVALID_STATE, ErrorCode.NOT_FOUND);
    assertThat(f.exists("c")).isTrue();
  }

  @Test
  void revokedRangeIsReusedOnlyAfterItsGrantExpired() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    PutStartResult late = f.start("late", 1000, 1);
    f.pool.putRevoke(List.of(new PutRef("late", late.generation())));
    f.put("next", 1000, 1);
    long nextOffset =
        f.pool.getReplicas(List.of("next")).get(0).replicas().get(0).slices().get(0).offset();
    assertThat(nextOffset)
        .as("a late writer with the old grant cannot hit the new object")
        .isNotEqualTo(late.replicas().get(0).slices().get(0).slice().offset());
    f.advance(Duration.ofSeconds(31));
    f.heartbeats();
    f.pool.tick();
    assertThat(f.pool.snapshot().usedBytes()).isEqualTo(SegmentAllocator.blockSize(1000));
  }

  // ---- receipts ----

  @Test
  void putEndNeedsAReceiptOfAWrittenReplica() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    PutStartResult none = f.start("none", 1000, 2);
    assertThat(f.pool.putEnd(List.of(new PutEndItem("none", none.generation(), List.of()))))
        .as("PutEnd without any WRITE")
        .containsExactly(ErrorCode.WRITE_INCOMPLETE);
    assertThat(f.exists("none")).isFalse();

    PutStartResult forged = f.start("forged", 1000, 2);
    Receipt fake = new Receipt(forged.replicas().get(0).nodeId(), new byte[16]);
    assertThat(f.pool.putEnd(List.of(new PutEndItem("forged", forged.generation(), List.of(fake)))))
        .containsExactly(ErrorCode.WRITE_INCOMPLETE);

    PutStartResult half = f.start("half", 1000, 2);
    Receipt one = f.write("half", half, half.replicas().get(0), 1000, 2);
    assertThat(f.pool.putEnd(List.of(new PutEndItem("half", half.generation(), List.of(one)))))
        .containsExactly(ErrorCode.OK);
    assertThat(f.replicas("half")).as("only the proven replica counts").isEqualTo(1);
    f.tickUntilQuiet();
    assertThat(f.replicas("half")).as("the missing one is copied").isEqualTo(2);
    assertThat(f.pool.putEnd(List.of(new PutEndItem("half", half.generation(), List.of()))))
        .as("a retried PutEnd of a completed put")
        .containsExactly(ErrorCode.OK);
  }

  @Test
  void itemsOverALimitAreAnsweredOneByOne() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    List<PutStartResult> r =
        f.pool.putStart(
            List.of(
                new PutStartItem("x".repeat(5000), 10, 0, 1, 1, List.of()),
                new PutStartItem("zero", 0, 0, 1, 2, List.of()),
                new PutStartItem("ok", 10, 0, 1, 3, List.of()),
                new PutStartItem("", 10, 0, 1, 4, List.of())),
            PoolFixture.PUT_END_WRITER);
    assertThat(r)
        .extracting(PutStartResult::status)
        .containsExactly(
            ErrorCode.LIMIT_EXCEEDED,
            ErrorCode.LIMIT_EXCEEDED,
            ErrorCode.OK,
            ErrorCode.LIMIT_EXCEEDED);
    assertThat(r.get(0).message()).contains("5000");
    assertThat(f.pool.getReplicas(List.of("y".repeat(4097))).get(0).status())
        .isEqualTo(ErrorCode.LIMIT_EXCEEDED);
  }

  // ---- nodes: death, re-registration, tombstones, master restarts ----

  @Test
  void silentNodeIsDeclaredDeadAndItsObjectsRepairedFromSurvivors() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).node("c", MIB).settle();
    f.put("k", 1000, 2);
    String lost = f.pool.getReplicas(List.of("k")).get(0).replicas().get(0).nodeId();
    f.advance(Duration.ofSeconds(11));
    f.nodes.values().stream().filter(n -> !n.id.equals(lost)).forEach(f::heartbeat);
    f.tickUntilQuiet();
    assertThat(f.heartbeat(f.nodes.get(lost)).known())
        .as("a dead node must register again")
        .isFalse();
    assertThat(f.pool.getReplicas(List.of("k")).get(0).replicas())
        .extracting(x -> x.nodeId())
        .hasSize(2)
        .doesNotContain(lost);
    assertThat(MasterCounters.value(f.counters.repairs)).isEqualTo(1);
  }

  @Test
  void objectsOnlyOnADeadNodeAreLost() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    f.put("k", 1000, 1);
    f.advance(Duration.ofSeconds(11));
    f.pool.tick();
    f.pool.tick();
    assertThat(f.exists("k")).isFalse();
    assertThat(MasterCounters.value(f.counters.objectsLost)).isEqualTo(1);
    assertThat(f.pool.stats().aliveNodes()).isZero();
  }

  @Test
  void aMasterRestartKeepsEveryObjectAtItsReplicaCount() {
    PoolFixture f = threeNodesHoldingObjectsAtTwoReplicas();
    f.restartMaster();
    assertThat(f.pool.state()).isEqualTo(ServerState.RECOVERING);
    f.settle();
    f.tickUntilQuiet();
    for (int i = 0; i < 300; i++) {
      assertThat(f.replicas("k" + i)).as("k" + i).isEqualTo(2);
    }
    // and losing a node afterwards loses nothing
    f.advance(Duration.ofSeconds(11));
    f.nodes.values().stream().filter(n -> !n.id.equals("a")).forEach(f::heartbeat);
    f.tickUntilQuiet();
    for (int i = 0; i < 300; i++) {
      assertThat(f.replicas("k" + i)).as("k" + i).isEqualTo(2);
    }
  }

  @Test
  void aNewLeaderRecoversUntilEveryNodeThePreviousLeaderRecordedIsBack() {
    PoolFixture f = threeNodesHoldingObjectsAtTwoReplicas();
    String onlyOnBAndC = onlyOn(f, "b", "c");
    f.restartMasterHearingFrom(
        "a"); // b and c are slow to find the new leader (a dead pod's address, say)
    f.settle();
    f.advance(f.config.recoveryQuietPeriod().multipliedBy(2));
    f.pool.tick();
    assertThat(f.pool.state())
        .as("b and c were recorded: registrations going quiet is not enough")
        .isEqualTo(ServerState.RECOVERING);
    assertThat(f.pool.getReplicas(List.of(onlyOnBAndC)).get(0).status())
        .as("not a final miss")
        .isEqualTo(ErrorCode.RECOVERING);
    assertThat(f.pool.servedNodes())
        .as("recorded for the next leader while b and c are on their way")
        .containsExactlyInAnyOrder("a", "b", "c");

    f.heartbeats();
    f.register(f.nodes.get("b"));
    f.pool.tick();
    assertThat(f.pool.state()).isEqualTo(ServerState.RECOVERING);
    f.register(f.nodes.get("c"));
    f.pool.tick();
    assertThat(f.pool.state())
        .as("every recorded node is back: no quiet period to wait")
        .isEqualTo(ServerState.SERVING);
    for (int i = 0; i < 300; i++) {
      assertThat(f.replicas("k" + i)).as("k" + i).isEqualTo(2);
    }
  }

  @Test
  void aRecordedNodeThatNeverComesBackEndsRecoveryOneNodeTtlAfterTheLeadershipBegan() {
    PoolFixture f = threeNodesHoldingObjectsAtTwoReplicas();
    f.restartMasterHearingFrom("a", "b");
    f.advance(f.config.nodeTtl().minusMillis(1));
    f.heartbeats();
    f.pool.tick();
    assertThat(f.pool.state()).isEqualTo(ServerState.RECOVERING);
    f.advance(Duration.ofMillis(1));
    f.pool.tick();
    assertThat(f.pool.state()).isEqualTo(ServerState.SERVING);
    assertThat(f.pool.servedNodes())
        .as("c is no longer recorded")
        .containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aNodeThatComesBackAfterRecoveryButWithinTheNodeTtlKeepsItsReplicas() {
    PoolFixture f = threeNodesHoldingObjectsAtTwoReplicas();
    int onC = f.nodes.get("c").objects.size();
    f.restartMasterWithoutRecordHearingFrom(
        "a", "b"); // c is slow to find the new leader, which has no record of it
    f.settle();
    assertThat(f.pool.state()).isEqualTo(ServerState.SERVING);
    assertThat(f.pool.tick()).as("no copy while c may still come back").isEmpty();
    assertThat(f.pool.snapshot().underReplicated()).isEqualTo(onC);

    f.advance(f.config.nodeTtl().minusSeconds(1).minus(f.config.recoveryQuietPeriod()));
    f.heartbeats();
    f.register(f.nodes.get("c"));
    f.tickUntilQuiet();
    assertThat(f.nodes.get("c").objects).as("c kept every replica it holds").hasSize(onC);
    assertThat(f.pool.snapshot().underReplicated()).isZero();
    for (int i = 0; i < 300; i++) {
      assertThat(f.replicas("k" + i)).as("k" + i).isEqualTo(2);
    }
  }

  @Test
  void aNodeThatNeverComesBackIsReplacedOneNodeTtlAfterTheNewLeaderBegan() {
    PoolFixture f = threeNodesHoldingObjectsAtTwoReplicas();
    f.restartMasterHearingFrom("a", "b");
    f.settle();
    assertThat(f.pool.tick()).isEmpty();
    f.advance(f.config.nodeTtl());
    f.heartbeats();
    f.tickUntilQuiet();
    for (int i = 0; i < 300; i++) {
      assertThat(f.replicas("k" + i)).as("k" + i).isEqualTo(2);
    }
  }

  @Test
  void whileRecoveringAMissIsRetryableAndNothingIsEvicted() {
    PoolFixture f = new PoolFixture(0.5, 0.5).node("a", MIB);
    f.put("k", VALUE, 1);
    assertThat(f.pool.getReplicas(List.of("nothing")).get(0).status())
        .isEqualTo(ErrorCode.RECOVERING);
    assertThat(f.pool.exists(List.of("nothing"))).containsExactly(ErrorCode.RECOVERING);
    f.settle();
    assertThat(f.pool.getReplicas(List.of("nothing")).get(0).status())
        .isEqualTo(ErrorCode.NOT_FOUND);
  }

  @Test
  void aReRegistrationConfirmsOnlyWhatTheInventoryHolds() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    f.put("kept", 1000, 1);
    f.put("gone", 1000, 1);
    PoolFixture.SimNode a = f.nodes.get("a");
    a.objects.remove("gone"); // the node lost it (e.g. restarted without it)
    a.connectionOpen = false;
    f.register(a);
    f.pool.tick();
    assertThat(f.exists("kept")).isTrue();
    assertThat(f.exists("gone")).isFalse();
    assertThat(f.pool.snapshot().usedBytes()).isEqualTo(SegmentAllocator.blockSize(1000));
  }

  @Test
  void anInventoryLargerThanOneChunkIsAdoptedCompletely() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", 64 * MIB).settle();
    for (int i = 0; i < 500; i++) {
      f.put("k" + i, 1000, 1);
    }
    f.restartMaster(); // chunks of 2 objects: 250 chunks
    f.settle();
    for (int i = 0; i < 500; i++) {
      assertThat(f.exists("k" + i)).isTrue();
    }
    assertThat(f.pool.snapshot().nodes())
        .singleElement()
        .satisfies(
            n ->
                assertThat(n.replicas())
                    .as("the node's replicas, as status shows them")
                    .isEqualTo(500));
  }

  @Test
  void aRemovedKeyStaysRemovedWhenItsHolderComesBack() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    f.put("k", 1000, 1);
    String holder = f.pool.getReplicas(List.of("k")).get(0).replicas().get(0).nodeId();
    f.advance(Duration.ofSeconds(6)); // lease over; the holder goes silent
    assertThat(f.pool.remove(List.of("k")).statuses()).containsExactly(ErrorCode.OK);
    f.advance(Duration.ofSeconds(6));
    f.nodes.values().stream().filter(n -> !n.id.equals(holder)).forEach(f::heartbeat);
    f.pool.tick(); // the holder is DEAD; its release was never delivered
    PoolFixture.SimNode back = f.nodes.get(holder);
    assertThat(back.objects).containsKey("k");
    back.connectionOpen = false;
    f.register(back);
    f.heartbeats();
    assertThat(f.exists("k")).isFalse();
    assertThat(back.objects).as("the node was told to drop it").doesNotContainKey("k");
    assertThat(back.tombstones).containsKey("k");
  }

  @Test
  void aTombstoneOnAnyNodeKeepsADeletedObjectDeletedAcrossAFailover() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    f.put("k", 1000, 2);
    f.advance(Duration.ofSeconds(6));
    f.pool.remove(List.of("k")).statuses();
    f.heartbeat(f.nodes.get("a")); // a learns of the removal, b never does
    assertThat(f.nodes.get("b").objects).containsKey("k");
    f.restartMaster();
    f.settle();
    assertThat(f.exists("k")).isFalse();
  }

  @Test
  void theNewestGenerationOfAKeyWins() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    f.put("k", 1000, 1);
    long older = f.pool.getReplicas(List.of("k")).get(0).generation();
    String firstHolder = f.pool.getReplicas(List.of("k")).get(0).replicas().get(0).nodeId();
    f.advance(Duration.ofSeconds(6));
    f.pool.remove(List.of("k")).statuses();
    f.put("k", 2000, 1);
    long newer = f.pool.getReplicas(List.of("k")).get(0).generation();
    assertThat(newer).isGreaterThan(older);
    f.nodes.get(firstHolder).tombstones.clear(); // even without the tombstone (e.g. expired)
    f.restartMaster();
    f.settle();
    ReplicaListResult r = f.pool.getReplicas(List.of("k")).get(0);
    assertThat(r.generation()).isEqualTo(newer);
    assertThat(r.size()).isEqualTo(2000);
  }

  @Test
  void aLiveNodeIdCannotBeTakenOverFromAnotherConnection() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).settle();
    assertThatThrownBy(
            () ->
                f.pool.register(
                    new RegisterNode(
                        "a", "10.0.0.66:1", List.of(new SegmentInfo(0, MIB)), 0, false),
                    VersionInfo.CURRENT,
                    new Object(),
                    () -> true))
        .isInstanceOf(RefusedException.class)
        .hasMessageContaining("another open connection");
  }

  // ---- drains ----

  @Test
  void drainMovesObjectsOffTheNode() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    for (int i = 0; i < 10; i++) {
      f.put("k" + i, 1000, 1);
    }
    f.pool.drain("a");
    f.tickUntilQuiet();
    PoolSnapshot.Node a =
        f.pool.snapshot().nodes().stream()
            .filter(n -> n.id().equals("a"))
            .findFirst()
            .orElseThrow();
    assertThat(a.state()).isEqualTo(NodeState.DRAINING);
    assertThat(a.usedBytes()).isZero();
    for (int i = 0; i < 10; i++) {
      assertThat(f.pool.getReplicas(List.of("k" + i)).get(0).replicas())
          .extracting(x -> x.nodeId())
          .containsExactly("b");
    }
  }

  @Test
  void aDrainRightAfterANewLeaderBeganCopiesWithoutWaitingOneNodeTtlForLateNodes() {
    PoolFixture f = threeNodesHoldingObjectsAtTwoReplicas();
    f.restartMaster();
    f.settle();
    assertThat(f.pool.state()).isEqualTo(ServerState.SERVING);
    int onA = f.nodes.get("a").objects.size();
    f.pool.drain("a");
    // well within one node TTL of the leadership: recovered objects that are only short of copies
    // wait for late nodes, but a drain's copies do not (the draining node still holds its copy)
    f.tickUntilQuiet(); // the clock stands still
    PoolSnapshot.Node a =
        f.pool.snapshot().nodes().stream()
            .filter(n -> n.id().equals("a"))
            .findFirst()
            .orElseThrow();
    assertThat(a.usedBytes()).as("a's %d replicas moved off it", onA).isZero();
    for (int i = 0; i < 300; i++) {
      assertThat(f.pool.getReplicas(List.of("k" + i)).get(0).replicas())
          .as("k" + i)
          .extracting(x -> x.nodeId())
          .containsExactlyInAnyOrder("b", "c");
    }
  }

  @Test
  void aDrainThatCannotFinishIsRefusedWithTheReason() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    f.put("k", 1000, 2);
    assertThatThrownBy(() -> f.pool.drain("a"))
        .isInstanceOf(RefusedException.class)
        .hasMessageContaining("need 2 replicas")
        .hasMessageContaining("1 other node");
  }

  @Test
  void aDrainWhoseBytesDoNotFitOnTheOtherNodesIsRefusedWithTheFigures() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", MIB).node("b", MIB / 4).settle();
    for (int i = 0; i < 3; i++) {
      f.put("k" + i, 100_000, 1, "b"); // on a, avoiding b
    }
    assertThatThrownBy(() -> f.pool.drain("a"))
        .isInstanceOf(RefusedException.class)
        .hasMessageMatching(
            "cannot drain node a: its 30[0-9]{4} bytes of replicas do not fit in the 262144 bytes free .*");
    assertThat(f.pool.snapshot().nodes())
        .extracting(PoolSnapshot.Node::state)
        .containsOnly(NodeState.ALIVE);
  }

  @Test
  void aPutPendingDuringADrainIsMovedOnceComplete() {
    PoolFixture f = new PoolFixture(0.9, 0.1).node("a", MIB).node("b", MIB).settle();
    PutStartResult p =
        f.pool
            .putStart(
                List.of(new PutStartItem("k", 1000, 0, 1, 1, List.of("b"))),
                PoolFixture.PUT_END_WRITER)
            .get(0);
    assertThat(p.replicas().get(0).nodeId()).isEqualTo("a");
    f.pool.drain("a");
    Receipt r = f.write("k", p, p.replicas().get(0), 1000, 1);
    f.pool.putEnd(List.of(new PutEndItem("k", p.generation(), List.of(r))));
    f.tickUntilQuiet();
    assertThat(f.pool.getReplicas(List.of("k")).get(0).replicas())
        .extracting(x -> x.nodeId())
        .containsExactly("b");
  }

  @Test
  void aNewLeaderAcknowledgesARecoveredPutOnlyWhileNoEarlierLeaderCanHaveRevokedIt() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 1 << 20).node("b", 1 << 20).settle();
    PutStartResult fresh = f.start("fresh", 100, 2);
    PutStartResult stale = f.start("stale", 100, 2);
    List<Receipt> freshReceipts =
        fresh.replicas().stream().map(g -> f.write("fresh", fresh, g, 100, 2)).toList();
    List<Receipt> staleReceipts =
        stale.replicas().stream().map(g -> f.write("stale", stale, g, 100, 2)).toList();

    // the leader is lost before either PUT_END; a new one adopts both from the nodes' inventories
    f.restartMaster();
    assertThat(f.pool.putEnd(List.of(new PutEndItem("fresh", fresh.generation(), freshReceipts))))
        .containsExactly(ErrorCode.OK);
    // the stale put's PUT_END comes after its deadline: the earlier leader may have revoked it and
    // told a node
    f.advance(f.config.pendingTimeout());
    assertThat(f.pool.putEnd(List.of(new PutEndItem("stale", stale.generation(), staleReceipts))))
        .containsExactly(ErrorCode.NOT_FOUND);
  }

  @Test
  void aNewLeaderThatHearsFromNoNodeKeepsRecoveringUntilTheNodeTtl() {
    PoolFixture f = new PoolFixture(1.0, 0.1).node("a", 1 << 20).settle();
    f.put("k", 100, 1);
    f.nodes.clear(); // no node registers with the new leader for a while
    f.restartMaster();
    f.advance(f.config.recoveryQuietPeriod().multipliedBy(2));
    f.pool.tick();
    assertThat(f.pool.exists(List.of("k"))).containsExactly(ErrorCode.RECOVERING);
    f.advance(f.config.nodeTtl());
    f.pool.tick();
    assertThat(f.pool.exists(List.of("k"))).containsExactly(ErrorCode.NOT_FOUND);
  }

  /** A key whose replicas are on exactly the two nodes named. */
  private static String onlyOn(PoolFixture f, String first, String second) {
    for (int i = 0; i < 300; i++) {
      String key = "k" + i;
      if (f.nodes.get(first).objects.containsKey(key)
          && f.nodes.get(second).objects.containsKey(key)) {
        return key;
      }
    }
    throw new AssertionError("no key on exactly " + first + " and " + second);
  }

  /** Nodes a, b and c holding k0..k299 at 2 replicas each. */
  private static PoolFixture threeNodesHoldingObjectsAtTwoReplicas() {
    PoolFixture f =
        new PoolFixture(0.9, 0.1)
            .node("a", 64 * MIB)
            .node("b", 64 * MIB)
            .node("c", 64 * MIB)
            .settle();
    for (int i = 0; i < 300; i++) {
      f.put("k" + i, 1000, 2);
    }
    return f;
  }
}
