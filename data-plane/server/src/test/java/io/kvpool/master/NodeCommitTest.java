package io.kvpool.master;

import static io.kvpool.master.PoolFixture.NODE_COMMIT_WRITER;
import static io.kvpool.master.PoolFixture.PUT_END_WRITER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.NodeCommit;
import io.kvpool.protocol.PutEndItem;
import io.kvpool.protocol.PutStartResult;
import io.kvpool.protocol.Receipt;
import io.kvpool.protocol.ReplicaGrant;
import io.kvpool.protocol.ReplicaListResult;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * Puts that their storage nodes commit (protocol 2.2): a put completes once every replica it placed
 * is committed by its node, only receipts of the node's current registration count, PUT_END and
 * inventories add to them, and lookups wait for commits that are on their way instead of missing a
 * put that already returned to its writer.
 */
class NodeCommitTest {
  private static final long MIB = 1 << 20;

  private static PoolFixture pool() {
    return new PoolFixture(0.9, 0.1).node("a", 16 * MIB).node("b", 16 * MIB).settle();
  }

  private static long pending(PoolFixture f) {
    return f.pool.snapshot().pendingObjects();
  }

  private static double nodeCommits(PoolFixture f, String outcome) {
    return f.counters.nodeCommits.labelValues(outcome).get();
  }

  private static long commitWaits(PoolFixture f) {
    return MasterCounters.value(f.counters.commitWaits);
  }

  @Test
  void aPutCompletesOnceEveryReplicaItPlacedIsCommittedByItsNode() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    assertThat(pending(f)).as("one of two replicas committed: still pending").isEqualTo(1);
    f.commit("k", p, p.replicas().get(1), 1000, 2);
    assertThat(pending(f)).isZero();
    assertThat(f.exists("k")).isTrue();
    assertThat(f.replicas("k")).isEqualTo(2);
    assertThat(nodeCommits(f, "applied")).isEqualTo(2);
    assertThat(f.pool.putEnd(List.of(new PutEndItem("k", p.generation(), List.of()))))
        .as("a PUT_END after it")
        .containsExactly(ErrorCode.OK);
  }

  @Test
  void aCommitCountsOnlyWithAReceiptOfTheNodesCurrentRegistration() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 1);
    ReplicaGrant g = p.replicas().get(0);
    PoolFixture.SimNode n = f.nodes.get(g.nodeId());
    byte[] receipt = f.write("k", p, g, 1000, 1).receipt();
    byte[] forged = receipt.clone();
    forged[0] ^= 1;
    f.pool.nodeCommit(
        new NodeCommit(
            n.id, n.registrationId, List.of(new NodeCommit.Item("k", p.generation(), forged))));
    f.pool.nodeCommit(
        new NodeCommit(
            n.id, new byte[16], List.of(new NodeCommit.Item("k", p.generation(), receipt))));
    PoolFixture.SimNode other = f.nodes.get(g.nodeId().equals("a") ? "b" : "a");
    f.pool.nodeCommit(
        new NodeCommit(
            other.id,
            other.registrationId,
            List.of(
                new NodeCommit.Item(
                    "k",
                    p.generation(),
                    other.key.receipt(
                        "k", p.generation(), 1000, 0))))); // a node that holds no replica of it
    f.pool.nodeCommit(
        new NodeCommit(
            n.id,
            n.registrationId,
            List.of(
                new NodeCommit.Item(
                    "k",
                    p.generation() + 1,
                    n.key.receipt("k", p.generation() + 1, 1000, 0))))); // another generation
    assertThat(pending(f)).isEqualTo(1);
    assertThat(nodeCommits(f, "ignored")).isEqualTo(4);
    f.pool.nodeCommit(
        new NodeCommit(
            n.id, n.registrationId, List.of(new NodeCommit.Item("k", p.generation(), receipt))));
    assertThat(pending(f)).isZero();
    assertThat(f.exists("k")).isTrue();
  }

  @Test
  void aRemovedPutsLateCommitFreesTheRangeItsRemoveQuarantined() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2); // visible: the writer has returned
    ReplicaGrant late = p.replicas().get(1);
    byte[] receipt =
        f.write("k", p, late, 1000, 2).receipt(); // written, its COMMIT still on its way
    assertThat(f.pool.remove(List.of("k")).statuses()).containsExactly(ErrorCode.OK);
    long quarantined = f.pool.snapshot().usedBytes();
    assertThat(quarantined)
        .as("the uncommitted replica's range waits for its writer's grant")
        .isPositive();

    PoolFixture.SimNode n = f.nodes.get(late.nodeId());
    f.pool.nodeCommit(
        new NodeCommit(
            n.id, n.registrationId, List.of(new NodeCommit.Item("k", p.generation(), receipt))));
    assertThat(f.pool.snapshot().usedBytes())
        .as("its node completed it: no writer is left, the range is free")
        .isZero();
    assertThat(nodeCommits(f, "freed_quarantine")).isEqualTo(1);
    assertThat(f.exists("k")).isFalse();

    f.advance(f.config.pendingTimeout().plusSeconds(1));
    f.heartbeats();
    f.tickUntilQuiet();
    assertThat(f.pool.snapshot().usedBytes()).as("the expiry frees nothing twice").isZero();
    assertThat(f.put("k2", 1000, 2).status()).isEqualTo(ErrorCode.OK);
    assertThat(f.pool.snapshot().usedBytes()).isEqualTo(2 * quarantined);
  }

  @Test
  void aLateCommitWithAForgedReceiptLeavesTheRangeQuarantined() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    ReplicaGrant late = p.replicas().get(1);
    byte[] forged = f.write("k", p, late, 1000, 2).receipt().clone();
    forged[0] ^= 1;
    f.pool.remove(List.of("k"));
    long quarantined = f.pool.snapshot().usedBytes();
    PoolFixture.SimNode n = f.nodes.get(late.nodeId());
    f.pool.nodeCommit(
        new NodeCommit(
            n.id, n.registrationId, List.of(new NodeCommit.Item("k", p.generation(), forged))));
    assertThat(f.pool.snapshot().usedBytes()).isEqualTo(quarantined).isPositive();
    assertThat(nodeCommits(f, "ignored")).isEqualTo(1);
  }

  @Test
  void aPutEndAddsTheReplicasTheirNodesCommitted() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    Receipt second = f.write("k", p, p.replicas().get(1), 1000, 2);
    assertThat(f.pool.putEnd(List.of(new PutEndItem("k", p.generation(), List.of(second)))))
        .containsExactly(ErrorCode.OK);
    assertThat(f.replicas("k"))
        .as("the committed replica kept, not released as unproven")
        .isEqualTo(2);
    f.tickUntilQuiet();
    assertThat(f.replicas("k")).isEqualTo(2);
  }

  @Test
  void aPutThatExpiresWithSomeReplicasCommittedKeepsThemAndIsRepaired() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit(
        "k",
        p,
        p.replicas().get(0),
        1000,
        2); // the other node never wrote: its writer failed or went away
    f.advance(f.config.pendingTimeout().plusSeconds(1));
    f.heartbeats();
    f.tickUntilQuiet();
    assertThat(pending(f)).isZero();
    assertThat(f.exists("k")).isTrue();
    assertThat(f.replicas("k")).isEqualTo(2);
  }

  @Test
  void aVerifiedReplicaInARegistrationsInventoryCountsAsItsNodesCommit() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 1);
    ReplicaGrant g = p.replicas().get(0);
    f.write("k", p, g, 1000, 1); // its COMMIT was lost with the node's connection to the master
    f.register(f.nodes.get(g.nodeId()));
    assertThat(pending(f)).isZero();
    assertThat(f.exists("k")).isTrue();
  }

  @Test
  void aPutItsNodesCommittedSurvivesANewLeader() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    f.commit("k", p, p.replicas().get(1), 1000, 2);
    f.restartMaster();
    f.settle();
    assertThat(f.exists("k")).isTrue();
    assertThat(f.replicas("k")).isEqualTo(2);
  }

  @Test
  void aLookupWaitsForTheCommitsOfAPutThatMayHaveReturnedToItsWriter() throws Exception {
    PoolFixture f = pool();
    f.pool.commitWaits(Duration.ofSeconds(60), Duration.ofSeconds(60));
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    CompletableFuture<List<ReplicaListResult>> lookup =
        CompletableFuture.supplyAsync(() -> f.pool.getReplicas(List.of("k", "other")));
    awaitCommitWait(f);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    assertThatThrownBy(() -> lookup.get(300, TimeUnit.MILLISECONDS))
        .as("one COMMIT of two: the lookup waits for the other")
        .isInstanceOf(TimeoutException.class);
    f.commit("k", p, p.replicas().get(1), 1000, 2);
    ReplicaListResult found = lookup.get(30, TimeUnit.SECONDS).get(0);
    assertThat(found.status()).isEqualTo(ErrorCode.OK);
    assertThat(found.generation()).isEqualTo(p.generation());
    assertThat(found.replicas())
        .as("every replica the writer was told is written")
        .extracting(r -> r.nodeId())
        .containsExactlyInAnyOrder(p.replicas().get(0).nodeId(), p.replicas().get(1).nodeId());
    assertThat(commitWaits(f)).isEqualTo(1);
  }

  @Test
  void aPutWithOneCommitMissingAfterTheWaitListsItsCommittedReplicasOnly() {
    PoolFixture f = pool();
    f.pool.commitWaits(Duration.ofSeconds(60), Duration.ofMillis(20));
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    f.write(
        "k",
        p,
        p.replicas().get(1),
        1000,
        2); // written, replied committed = 1, its COMMIT not here yet
    ReplicaListResult found = f.pool.getReplicas(List.of("k")).get(0);
    assertThat(found.status())
        .as("readable from its first commit, after the shorter wait")
        .isEqualTo(ErrorCode.OK);
    assertThat(found.replicas())
        .extracting(r -> r.nodeId())
        .containsExactly(p.replicas().get(0).nodeId());
    assertThat(f.exists("k")).isTrue();
    assertThat(commitWaits(f)).as("the first lookup waited, the later one did not").isEqualTo(1);
    assertThat(pending(f)).as("still pending: one replica's COMMIT is awaited").isEqualTo(1);
  }

  private static void awaitCommitWait(PoolFixture f) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (commitWaits(f)
        == 0) { // the lookup counts its wait under the lock it releases only by waiting
      assertThat(System.nanoTime() - deadline).as("the lookup waits for the commits").isNegative();
      Thread.sleep(1);
    }
  }

  /**
   * Issue 28: a writer told its put succeeded (both nodes replied committed = 1), one node killed
   * -9 between its reply and its COMMIT. The put reads back at once, and once the node is declared
   * dead the put completes with the replica that was committed and is copied back to two.
   */
  @Test
  void aNodeKilledBetweenItsReplyAndItsCommitDoesNotHideTheAcknowledgedPut() {
    PoolFixture f =
        new PoolFixture(0.9, 0.1)
            .node("a", 16 * MIB)
            .node("b", 16 * MIB)
            .node("c", 16 * MIB)
            .settle();
    f.pool.commitWaits(Duration.ofSeconds(60), Duration.ofMillis(20));
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    ReplicaGrant survivor = p.replicas().get(0);
    ReplicaGrant killed = p.replicas().get(1);
    f.commit("k", p, survivor, 1000, 2);
    f.write("k", p, killed, 1000, 2);
    f.nodes.remove(killed.nodeId()); // kill -9: no COMMIT, no heartbeat
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status()).isEqualTo(ErrorCode.OK);
    f.advance(f.config.nodeTtl().plusSeconds(1));
    f.heartbeats();
    f.tickUntilQuiet();
    assertThat(pending(f)).as("completed once the silent node was declared dead").isZero();
    assertThat(f.exists("k")).isTrue();
    assertThat(f.replicas("k")).as("copied back to its wanted count").isEqualTo(2);
    assertThat(f.pool.snapshot().underReplicated()).isZero();
  }

  @Test
  void aPutReadableFromOneCommitCanBeRemovedAndItsOtherRangeWaitsForItsGrants() {
    PoolFixture f = pool();
    PutStartResult p = f.start(NODE_COMMIT_WRITER, "k", 1000, 2);
    f.commit("k", p, p.replicas().get(0), 1000, 2);
    assertThat(f.pool.remove(List.of("k")).statuses()).containsExactly(ErrorCode.OK);
    assertThat(f.exists("k")).isFalse();
    assertThat(pending(f)).isZero();
    f.commit("k", p, p.replicas().get(1), 1000, 2); // a late COMMIT of a removed put is ignored
    assertThat(f.exists("k")).isFalse();
  }

  /**
   * A put and remove of the same key in a loop (LocationCacheTest's writer) must not fill the pool:
   * the remove of a put still pending some COMMIT frees its committed replicas' ranges at once;
   * only a range a writer may still write waits for its grant to expire.
   */
  @Test
  void removingAPutStillAwaitingACommitFreesTheCommittedRangesAtOnce() {
    PoolFixture f =
        pool(); // 2 x 16 MiB: 100 cycles quarantining every range (38 MiB) would not fit
    f.pool.commitWaits(Duration.ofSeconds(60), Duration.ZERO); // the other COMMIT never comes
    int size = 128 << 10;
    long usedBefore = f.pool.snapshot().usedBytes();
    for (int i = 0; i < 100; i++) {
      PutStartResult p = f.start(NODE_COMMIT_WRITER, "cycled", size, 2);
      assertThat(p.status()).as("put %d", i).isEqualTo(ErrorCode.OK);
      f.commit(
          "cycled", p, p.replicas().get(0), size, 2); // visible, its other COMMIT still on its way
      assertThat(f.pool.remove(List.of("cycled")).statuses())
          .as("remove %d", i)
          .containsExactly(ErrorCode.OK);
      f.advance(Duration.ofMillis(50));
      f.pool.tick();
    }
    assertThat(f.evictions()).isZero();
    long held = f.pool.snapshot().usedBytes() - usedBefore;
    assertThat(held)
        .as("only the uncommitted ranges wait for their grants")
        .isLessThanOrEqualTo(100L * size);
  }

  @Test
  void aPutThatStaysPendingHoldsUpOneLookupAndNoMore() {
    PoolFixture f = pool();
    f.start(NODE_COMMIT_WRITER, "k", 1000, 1); // written by nobody
    assertThat(f.pool.exists(List.of("k"))).containsExactly(ErrorCode.NOT_FOUND);
    assertThat(commitWaits(f)).isEqualTo(1);
    assertThat(f.pool.getReplicas(List.of("k")).get(0).status()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(f.pool.remove(List.of("k")).statuses()).containsExactly(ErrorCode.PUT_IN_PROGRESS);
    assertThat(commitWaits(f))
        .as("a lookup waited its whole wait: later ones answer at once")
        .isEqualTo(1);
  }

  @Test
  void aPutItsWriterEndsItselfIsNotWaitedFor() {
    PoolFixture f = pool();
    f.start(PUT_END_WRITER, "k", 1000, 1);
    assertThat(f.pool.exists(List.of("k"))).containsExactly(ErrorCode.NOT_FOUND);
    assertThat(commitWaits(f)).isZero();
  }
}
