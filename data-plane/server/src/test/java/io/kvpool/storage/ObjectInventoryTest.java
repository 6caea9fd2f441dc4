package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.Tombstone;
import io.kvpool.storage.ObjectInventory.ObjectId;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ObjectInventoryTest {
  private final ObjectInventory inv = new ObjectInventory(600_000, 3);

  private void complete(String key, long gen, Slice... slices) {
    int size = 0;
    for (Slice s : slices) {
      size += s.length();
    }
    for (Slice s : slices) {
      assertThat(inv.admitWrite(new ObjectId(key, gen), s, size, 0, 2, Long.MAX_VALUE, 0)).isNull();
    }
    assertThat(inv.completedBy(new ObjectId(key, gen))).hasSize(slices.length);
    assertThat(inv.markComplete(new ObjectId(key, gen))).isTrue();
  }

  @Test
  void aReplicaIsKnownByItsObjectNotItsRange() {
    complete("a", 1, new Slice(0, 0, 128, 0));
    assertThat(inv.holds(new ObjectId("a", 1), 0, 0, 128)).isTrue();
    assertThat(inv.holds(new ObjectId("a", 2), 0, 0, 128)).as("another generation").isFalse();
    assertThat(inv.holds(new ObjectId("b", 1), 0, 0, 128)).as("another key").isFalse();
    assertThat(inv.holds(new ObjectId("a", 1), 0, 0, 129)).as("beyond the slice").isFalse();
  }

  @Test
  void aWriteDropsOverlappingObjectsAndRefusesTheLateWritersOfTheCompleteOnes() {
    complete("a", 1, new Slice(0, 0, 128, 0));
    complete("b", 2, new Slice(0, 128, 64, 0));
    complete("c", 3, new Slice(1, 0, 64, 0));
    assertThat(
            inv.admitWrite(
                new ObjectId("d", 4), new Slice(0, 64, 128, 0), 128, 0, 1, Long.MAX_VALUE, 0))
        .isNull();
    assertThat(inv.snapshot().objects()).extracting(InventoryObject::key).containsExactly("c");
    assertThat(
            inv.admitWrite(
                new ObjectId("a", 1), new Slice(0, 0, 128, 0), 128, 0, 1, Long.MAX_VALUE, 0))
        .as("a late writer of an overwritten object")
        .contains("overwritten");
  }

  @Test
  void aWriteDropsExactlyTheRangesItOverlapsNotItsNeighbours() {
    complete("before", 1, new Slice(0, 0, 100, 0)); // ends where the write starts
    complete("first", 2, new Slice(0, 100, 50, 0));
    complete("inside", 3, new Slice(0, 200, 10, 0));
    complete("last", 4, new Slice(0, 290, 20, 0)); // overlaps the write's last 10 bytes
    complete("after", 5, new Slice(0, 310, 10, 0)); // starts past its end
    complete("other", 6, new Slice(1, 100, 200, 0)); // the same offsets in another segment
    assertThat(
            inv.admitWrite(
                new ObjectId("w", 7), new Slice(0, 100, 200, 0), 200, 0, 1, Long.MAX_VALUE, 0))
        .isNull();
    assertThat(inv.snapshot().objects())
        .extracting(InventoryObject::key)
        .containsExactlyInAnyOrder("before", "after", "other");
    // a replica a warm restart brings back may sit beside the others, never over one
    assertThat(
            inv.adopt(new InventoryObject("gap", 8, 1, 10, 0, List.of(new Slice(0, 300, 10, 0)))))
        .isNull();
    assertThat(
            inv.adopt(new InventoryObject("over", 9, 1, 10, 0, List.of(new Slice(0, 305, 10, 0)))))
        .contains("overlaps another replica");
    assertThat(
            inv.adopt(new InventoryObject("under", 10, 1, 10, 0, List.of(new Slice(0, 95, 10, 0)))))
        .contains("overlaps another replica");
  }

  /**
   * A node whose copy of an object was overwritten still takes a new copy of it into another range
   * when the master asks with a newer grant (a repair). Before, it refused every write of that
   * generation, and in a two-node pool the master retried the repair against it for ever. Writers
   * holding the overwritten replica's grant, or an older one, are still refused.
   */
  @Test
  void anOverwrittenObjectTakesACopyUnderANewerGrantButNotItsLateWriters() {
    ObjectId a = new ObjectId("a", 7);
    assertThat(inv.admitWrite(a, new Slice(0, 0, 128, 0), 128, 0, 2, 5_000, 0)).isNull();
    assertThat(inv.markComplete(a)).isTrue();
    assertThat(
            inv.admitWrite(
                new ObjectId("b", 8), new Slice(0, 0, 128, 0), 128, 0, 1, Long.MAX_VALUE, 0))
        .as("the range is reused")
        .isNull();
    assertThat(inv.markComplete(new ObjectId("b", 8))).isTrue();

    assertThat(inv.admitWrite(a, new Slice(0, 0, 128, 0), 128, 0, 2, 5_000, 1))
        .as("a late writer under the overwritten replica's grant")
        .contains("overwritten");
    assertThat(inv.admitWrite(a, new Slice(1, 0, 128, 0), 128, 0, 2, 4_000, 1))
        .as("a writer under an older grant")
        .contains("overwritten");
    assertThat(inv.admitWrite(new ObjectId("a", 6), new Slice(1, 0, 128, 0), 128, 0, 2, 9_000, 1))
        .as("an older generation")
        .contains("overwritten");
    assertThat(inv.admitWrite(a, new Slice(1, 0, 128, 0), 128, 0, 2, 9_000, 1))
        .as("a repair under a newer grant, into another range")
        .isNull();
    assertThat(inv.markComplete(a)).isTrue();
    assertThat(inv.holds(a, 1, 0, 128)).isTrue();
    assertThat(inv.holds(new ObjectId("b", 8), 0, 0, 128)).as("the range's new object").isTrue();
  }

  @Test
  void aDeletedObjectRefusesEveryGrantAndAnAdoptedOneOverwrittenRefusesToo() {
    ObjectId a = new ObjectId("a", 7);
    assertThat(inv.admitWrite(a, new Slice(0, 0, 128, 0), 128, 0, 2, 5_000, 0)).isNull();
    assertThat(inv.markComplete(a)).isTrue();
    inv.release(new Release("a", 7, true), 0);
    assertThat(inv.admitWrite(a, new Slice(1, 0, 128, 0), 128, 0, 2, Long.MAX_VALUE - 1, 1))
        .contains("deleted");

    // a replica a warm restart adopted has no grant the node knows: once overwritten, it refuses
    assertThat(
            inv.adopt(new InventoryObject("c", 3, 1, 64, 0, List.of(new Slice(2, 0, 64, 0)), null)))
        .isNull();
    assertThat(
            inv.admitWrite(
                new ObjectId("d", 4), new Slice(2, 0, 64, 0), 64, 0, 1, Long.MAX_VALUE, 0))
        .isNull();
    assertThat(
            inv.admitWrite(
                new ObjectId("c", 3), new Slice(2, 64, 64, 0), 64, 0, 1, Long.MAX_VALUE - 1, 1))
        .contains("overwritten");
  }

  /**
   * The master reuses a range as soon as it dropped the copy there (a surplus copy, a put's
   * unproven replica), and the release may reach the node after the write that reuses it. The
   * object lives on its other nodes: reported as a deletion, the next leader would delete it there
   * too (the chaos soak lost acknowledged objects so).
   */
  @Test
  void anOverwrittenCopyIsNotReportedAsDeletedSoTheObjectsOtherCopiesSurviveANewLeader() {
    complete("surplus", 1, new Slice(0, 0, 128, 0));
    complete("reused", 2, new Slice(0, 0, 128, 0));
    inv.release(
        new Release("surplus", 1, false), 0); // the late release of the copy the master dropped
    assertThat(inv.snapshot().tombstones()).as("nothing was deleted").isEmpty();
    assertThat(inv.savedTombstones()).as("nor kept for a warm restart").isEmpty();
    assertThat(inv.snapshot().objects()).extracting(InventoryObject::key).containsExactly("reused");

    inv.release(new Release("surplus", 1, true), 1); // later the master does delete it
    assertThat(inv.snapshot().tombstones()).containsExactly(new Tombstone("surplus", 1));
    assertThat(
            inv.admitWrite(
                new ObjectId("surplus", 1),
                new Slice(0, 256, 128, 0),
                128,
                0,
                1,
                Long.MAX_VALUE,
                1))
        .contains("deleted");
  }

  @Test
  void releasesNameTheObjectSoAReusedRangeKeepsItsNewObject() {
    complete("old", 1, new Slice(0, 0, 128, 0));
    complete(
        "new", 5, new Slice(0, 0, 128, 0)); // the master reused the range after releasing "old"
    inv.release(new Release("old", 1, true), 0); // the release arrives late
    assertThat(inv.holds(new ObjectId("new", 5), 0, 0, 128)).isTrue();
    assertThat(inv.snapshot().objects()).extracting(InventoryObject::key).containsExactly("new");
  }

  @Test
  void deletedReleasesLeaveBoundedTombstonesMovesLeaveNone() {
    complete("moved", 1, new Slice(0, 0, 64, 0));
    inv.release(new Release("moved", 1, false), 0);
    assertThat(inv.tombstoneCount()).isZero();
    for (int i = 0; i < 5; i++) {
      inv.release(new Release("k" + i, i, true), i);
    }
    assertThat(inv.tombstoneCount()).as("capped").isEqualTo(3);
    assertThat(inv.tombstonesDropped()).isEqualTo(2);
    inv.expireTombstones(600_002);
    assertThat(inv.tombstoneCount()).as("k2 expired, k3 and k4 not yet").isEqualTo(2);
  }

  @Test
  void aReplicaIsCompleteOnlyWhenItsSlicesCoverTheValue() {
    ObjectId id = new ObjectId("split", 9);
    assertThat(inv.admitWrite(id, new Slice(0, 0, 100, 0), 150, 0, 1, Long.MAX_VALUE, 0)).isNull();
    assertThat(inv.completedBy(id)).isNull();
    assertThat(inv.admitWrite(id, new Slice(1, 0, 50, 100), 150, 0, 1, Long.MAX_VALUE, 0)).isNull();
    assertThat(inv.completedBy(id)).extracting(Slice::valueOffset).containsExactly(0, 100);
    assertThat(inv.snapshot().objects()).as("not complete until its checksum matched").isEmpty();
    inv.markComplete(id);
    assertThat(inv.snapshot().objects()).hasSize(1);
  }

  @Test
  void aReplicaKeepsTheBlockMetadataItsFirstWriteBroughtAndListsIt() {
    BlockMetadata first =
        new BlockMetadata(false, List.of(new byte[] {1}), new byte[0], new int[] {1, 2}, 16, 0);
    BlockMetadata other =
        new BlockMetadata(false, List.of(new byte[] {2}), new byte[0], new int[0], 16, 0);
    ObjectId id = new ObjectId("meta", 3);
    assertThat(
            inv.admitWrite(id, new Slice(1, 0, 50, 100), 150, 0, 1, Long.MAX_VALUE, 0, null, null))
        .isNull();
    assertThat(
            inv.admitWrite(id, new Slice(0, 0, 100, 0), 150, 0, 1, Long.MAX_VALUE, 0, null, first))
        .isNull();
    inv.markComplete(id);
    assertThat(inv.snapshot().objects())
        .extracting(InventoryObject::metadata)
        .containsExactly(first);
    assertThat(inv.replica(id).metadata()).isEqualTo(first);
    ObjectId later = new ObjectId("meta2", 4);
    inv.admitWrite(later, new Slice(2, 0, 10, 0), 20, 0, 1, Long.MAX_VALUE, 0, null, first);
    inv.admitWrite(later, new Slice(2, 64, 10, 10), 20, 0, 1, Long.MAX_VALUE, 0, null, other);
    inv.markComplete(later);
    assertThat(inv.replica(later).metadata()).isEqualTo(first);
    // a warm restart's adoption keeps what the saved inventory lists
    ObjectInventory next = new ObjectInventory(600_000, 3);
    assertThat(next.adopt(inv.replica(id))).isNull();
    assertThat(next.replica(id).metadata()).isEqualTo(first);
  }

  @Test
  void writesInProgressExpireWithTheirGrant() {
    ObjectId id = new ObjectId("slow", 1);
    inv.admitWrite(id, new Slice(0, 0, 10, 0), 20, 0, 1, 1_000, 0);
    inv.expireWrites(999);
    assertThat(inv.admitWrite(id, new Slice(0, 10, 10, 10), 20, 0, 1, 1_000, 0)).isNull();
    inv.expireWrites(1_001);
    assertThat(inv.completedBy(id)).isNull();
  }

  @Test
  void onlyWritesStillInProgressExpireAndEachOnce() {
    ObjectId done = new ObjectId("done", 1);
    inv.admitWrite(done, new Slice(0, 0, 10, 0), 10, 0, 1, 1_000, 0);
    assertThat(inv.markComplete(done)).isTrue();
    ObjectId discarded = new ObjectId("discarded", 1);
    inv.admitWrite(discarded, new Slice(0, 100, 10, 0), 20, 0, 1, 1_000, 0);
    inv.discardIncomplete(discarded);
    ObjectId later = new ObjectId("later", 1); // the discarded write's range, under a longer grant
    inv.admitWrite(later, new Slice(0, 100, 10, 0), 20, 0, 1, 5_000, 0);
    ObjectId slow = new ObjectId("slow", 1);
    inv.admitWrite(slow, new Slice(0, 200, 10, 0), 20, 0, 1, 1_000, 0);

    inv.expireWrites(2_000);

    assertThat(inv.replica(done)).as("a complete replica outlives its grant").isNotNull();
    assertThat(inv.admitWrite(later, new Slice(0, 110, 10, 10), 20, 0, 1, 5_000, 0)).isNull();
    assertThat(inv.completedBy(later)).as("its grant runs to 5 s").hasSize(2);
    assertThat(inv.admitWrite(slow, new Slice(0, 210, 10, 10), 20, 0, 1, 1_000, 0)).isNull();
    assertThat(inv.completedBy(slow)).as("its first slice expired with its grant").isNull();

    assertThat(inv.markComplete(later)).isTrue();
    inv.expireWrites(10_000);
    assertThat(inv.replica(later)).as("complete before its grant ran out").isNotNull();
    assertThat(inv.replica(done)).isNotNull();
  }

  /** A reply's pin whose stop is counted (the node cuts the reply's connection there). */
  private static final class Reply {
    final AtomicInteger stops = new AtomicInteger();
    final ReadPin pin = new ReadPin(stops::incrementAndGet);
  }

  @Test
  void aReleaseStopsTheRepliesSendingItsObjectOnceAndOnlyThose() {
    complete("a", 1, new Slice(0, 0, 128, 0));
    complete("b", 2, new Slice(0, 128, 64, 0));
    Reply ra = new Reply();
    Reply rb = new Reply();
    assertThat(inv.pin(ra.pin, new ObjectId("a", 1), 0, 32, 64)).isTrue();
    assertThat(inv.pin(rb.pin, new ObjectId("b", 2), 0, 128, 64)).isTrue();
    assertThat(inv.pin(new Reply().pin, new ObjectId("a", 2), 0, 0, 128))
        .as("another generation")
        .isFalse();
    inv.release(new Release("a", 1, true), 0);
    inv.release(new Release("a", 1, true), 0);
    assertThat(ra.stops).hasValue(1);
    assertThat(ra.pin.revoked()).isTrue();
    assertThat(rb.stops).hasValue(0);
    inv.unpin(ra.pin);
    inv.unpin(rb.pin);
    assertThat(inv.pinnedSlices()).isZero();
  }

  @Test
  void aWriteOverAPinnedRangeStopsItsReplyAndWaitsUntilTheReplyLetGo() throws Exception {
    complete("old", 1, new Slice(0, 0, 128, 0));
    complete("other", 2, new Slice(0, 256, 64, 0));
    Reply old = new Reply();
    Reply other = new Reply();
    assertThat(inv.pin(old.pin, new ObjectId("old", 1), 0, 0, 128)).isTrue();
    assertThat(inv.pin(other.pin, new ObjectId("other", 2), 0, 256, 64)).isTrue();
    // the master reused the range before the node learned of the release: the WRITE drops "old" and
    // stops its reply
    Slice fresh = new Slice(0, 64, 128, 0);
    assertThat(inv.admitWrite(new ObjectId("new", 3), fresh, 128, 0, 1, Long.MAX_VALUE, 0))
        .isNull();
    assertThat(old.stops).hasValue(1);
    assertThat(inv.awaitUnpinned(fresh, Duration.ofMillis(50).toNanos()))
        .as("the reply still holds the range")
        .isFalse();
    CompletableFuture<Boolean> waiting =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return inv.awaitUnpinned(fresh, Duration.ofSeconds(30).toNanos());
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    inv.unpin(old.pin); // the stopped reply's send failed and it let go
    assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(other.stops).as("a reply of a range the write does not touch").hasValue(0);
    assertThat(inv.awaitUnpinned(new Slice(0, 256, 64, 0), 0))
        .as("a range still being sent")
        .isFalse();
    assertThat(other.stops)
        .as("whatever still sends a range a write waits for is stopped")
        .hasValue(1);
    inv.unpin(other.pin);
    assertThat(inv.pinnedSlices()).isZero();
  }

  @Test
  void aRangeStillSentForAGoneObjectIsNeverPinnedForAnother() {
    complete("old", 1, new Slice(0, 0, 128, 0));
    Reply stalled = new Reply();
    assertThat(inv.pin(stalled.pin, new ObjectId("old", 1), 0, 0, 128)).isTrue();
    inv.release(new Release("old", 1, true), 0);
    // WRITEs wait for the stalled reply, so nothing completes there meanwhile; should a replica be
    // there all the same
    // (here: adopted), a reply of it is refused until the old reply let go, never sent alongside it
    assertThat(
            inv.adopt(new InventoryObject("new", 2, 1, 128, 0, List.of(new Slice(0, 0, 128, 0)))))
        .isNull();
    assertThat(inv.pin(new Reply().pin, new ObjectId("new", 2), 0, 0, 128)).isFalse();
    inv.unpin(stalled.pin);
    assertThat(inv.pin(new Reply().pin, new ObjectId("new", 2), 0, 0, 128)).isTrue();
  }
}
