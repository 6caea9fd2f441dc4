package io.kvpool.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.kvpool.nativemem.NativeSegment;
import io.kvpool.nativemem.SegmentOptions;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.Slice;
import io.kvpool.storage.ObjectInventory.ObjectId;
import io.kvpool.storage.disk.DiskTier;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two ways a replica leaves a node's memory for its disk tier meet: the master's move (a
 * release "to disk", applied on the tier's thread) and a WRITE that takes the replica's range first
 * (it spills the replica it displaces before its bytes land). Whatever their order, the object's
 * record is on disk, a read finds it, and the master is never told the replica is gone. A real
 * inventory, tier and native segment; each race is held open at the step that loses it, through the
 * spill seam, as a slow disk would hold it.
 */
class DiskSpillTest {
  private static final int VALUE = 64 << 10;
  private static final long WAIT_SECONDS = 30;

  @TempDir Path dir;
  private NativeSegment segment;
  private ObjectInventory inventory;
  private DiskSpill spill;
  private final ExecutorService background = Executors.newCachedThreadPool();
  private final CountDownLatch open = new CountDownLatch(1);

  @BeforeEach
  void start() {
    segment = NativeSegment.allocate(4L << 20, SegmentOptions.defaults());
    inventory = new ObjectInventory(600_000, 1_000);
    DiskSpill[] self = new DiskSpill[1];
    DiskTier tier =
        DiskTier.open(DiskTier.Settings.of(dir, 64L << 20), lost -> self[0].lost(lost), 4L << 20);
    spill = new DiskSpill(tier, List.of(segment), inventory);
    self[0] = spill;
  }

  @AfterEach
  void stop() {
    open.countDown();
    background.shutdownNow();
    spill.close();
    spill.tier().close();
    segment.close();
  }

  @Test
  void aMoveThatFindsTheRangeOverwrittenKeepsTheRecordTheWriterSpilled() throws Exception {
    ByteBuffer victim = random(1);
    ObjectId id = store("victim", 1, victim);
    CountDownLatch moveHeld = new CountDownLatch(1);
    spill.beforeSpill =
        (spilled, displaced) -> {
          if (spilled.equals(id) && !displaced) {
            moveHeld.countDown();
            await(open);
          }
        };
    // the master's move: its spill is held after it found the replica in memory
    spill.release(Release.toDisk("victim", 1), System.currentTimeMillis());
    assertThat(moveHeld.await(WAIT_SECONDS, TimeUnit.SECONDS))
        .as("the move reached its spill")
        .isTrue();

    // meanwhile a put the master gave the freed range writes there: it spills the victim first,
    // then its bytes land
    List<InventoryObject> displaced = writeOver("next", 1, random(2));
    assertThat(displaced).extracting(InventoryObject::key).containsExactly("victim");
    assertThat(spill.tier().contains(new DiskTier.ObjectRef("victim", 1)))
        .as("the writer spilled the victim before its bytes landed")
        .isTrue();

    open.countDown(); // the move's spill checks memory that holds another object's bytes now
    assertThat(spill.releasesApplied(WAIT_SECONDS * 1_000)).as("the move was applied").isTrue();
    assertThat(spill.takeDrops(10))
        .as("the master is not told that the victim's disk replica is gone: the tier holds it")
        .isEmpty();
    assertThat(spill.tier().status().spillFailures())
        .as("the move's check of memory that changed is not a failed spill: its record is written")
        .isZero();
    assertThat(readFromTier("victim", 1)).as("the victim's record").isEqualTo(victim);
  }

  @Test
  void aReadWhileAWriterSpillsTheReplicaItDisplacedWaitsForTheRecord() throws Exception {
    ByteBuffer victim = random(3);
    ObjectId id = store("victim", 1, victim);
    holdTheSpillOfAWriterThatDisplaces(id);
    Future<List<InventoryObject>> writer = background.submit(() -> writeOver("next", 1, random(4)));
    awaitSpilling(id);
    assertThat(inventory.replica(id)).as("gone from memory").isNull();

    // a READ_OBJECT comes now, between the victim's displacement and its record
    Future<ByteBuffer> read = background.submit(() -> readFromTier("victim", 1));
    try {
      ByteBuffer early = read.get(2, TimeUnit.SECONDS);
      fail(
          "the read answered while the victim's record was still being written: %s",
          early == null ? "the node holds nothing (NOT_FOUND)" : early.remaining() + " bytes");
    } catch (TimeoutException waiting) {
      // it waits for the writer's spill
    }
    open.countDown();
    assertThat(read.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .as("the record the writer spilled")
        .isEqualTo(victim);
    assertThat(writer.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .extracting(InventoryObject::key)
        .containsExactly("victim");
  }

  @Test
  void anotherWriteIntoTheRangeOfAReplicaBeingSpilledWaitsForTheSpill() throws Exception {
    ByteBuffer victim = random(5);
    ObjectId id = store("victim", 1, victim);
    holdTheSpillOfAWriterThatDisplaces(id);
    // the master gave the victim's freed range to two puts: the first half's WRITE displaces the
    // victim and spills it (held here, as a slow disk would hold it)
    Slice firstHalf = new Slice(0, 0, VALUE / 2, 0);
    Slice secondHalf = new Slice(0, VALUE / 2, VALUE / 2, 0);
    Future<List<InventoryObject>> first =
        background.submit(() -> write("first", firstHalf, random(6)));
    awaitSpilling(id);
    // the second half's WRITE finds nothing there to displace: its bytes must still wait
    List<InventoryObject> none = new ArrayList<>();
    assertThat(
            inventory.admitWrite(
                new ObjectId("second", 1),
                secondHalf,
                VALUE / 2,
                0,
                1,
                Long.MAX_VALUE,
                now(),
                none,
                null))
        .isNull();
    assertThat(none).as("the victim already left the inventory").isEmpty();
    assertThat(inventory.awaitUnpinned(secondHalf, TimeUnit.SECONDS.toNanos(1)))
        .as("whether the second WRITE's bytes may land while the victim is spilled from that range")
        .isFalse();

    open.countDown();
    assertThat(inventory.awaitUnpinned(secondHalf, TimeUnit.SECONDS.toNanos(WAIT_SECONDS)))
        .as("the second WRITE goes on once the spill is done")
        .isTrue();
    assertThat(first.get(WAIT_SECONDS, TimeUnit.SECONDS))
        .extracting(InventoryObject::key)
        .containsExactly("victim");
    assertThat(spill.takeDrops(10)).as("the victim's spill was written").isEmpty();
    assertThat(readFromTier("victim", 1)).as("the victim's record").isEqualTo(victim);
  }

  @Test
  void aSpillThatThrowsIsAFailedSpillAndLeavesTheRangeOpen() throws Exception {
    ObjectId id = store("victim", 1, random(7));
    spill.beforeSpill =
        (spilled, displaced) -> {
          throw new IllegalStateException("the disk went away mid-spill (test)");
        };
    assertThat(writeOver("next", 1, random(8)))
        .as("the WRITE went on, its bytes landed")
        .extracting(InventoryObject::key)
        .containsExactly("victim");
    assertThat(inventory.spilling(id)).as("no spill left open").isFalse();
    assertThat(spill.takeDrops(10))
        .as("the master is told the victim's replica is gone")
        .extracting(p -> p.key() + "/" + p.generation())
        .containsExactly("victim/1");
  }

  /** Holds a WRITE's spill of the replica {@code id} it displaced until {@link #open} opens. */
  private void holdTheSpillOfAWriterThatDisplaces(ObjectId id) {
    spill.beforeSpill =
        (spilled, displaced) -> {
          if (spilled.equals(id) && displaced) {
            await(open);
          }
        };
  }

  /** Waits until a WRITE displaced the replica {@code id} and spills it. */
  private void awaitSpilling(ObjectId id) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!inventory.spilling(id)) {
      assertThat(System.nanoTime()).as("a WRITE displaced %s", id).isLessThan(deadline);
      Thread.yield();
    }
  }

  /** A complete replica of (key, generation) at the start of the segment. */
  private ObjectId store(String key, long generation, ByteBuffer value) {
    ObjectId id = new ObjectId(key, generation);
    segment.view(0, VALUE).put(value.duplicate());
    Slice slice = new Slice(0, 0, VALUE, 0);
    assertThat(
            inventory.admitWrite(
                id, slice, VALUE, segment.crc32c(0, VALUE), 1, Long.MAX_VALUE, now()))
        .isNull();
    assertThat(inventory.completedBy(id)).hasSize(1);
    assertThat(inventory.markComplete(id)).isTrue();
    return id;
  }

  /**
   * A WRITE of another object into the same range, as the node serves it: the replicas it displaces
   * are spilled, then its bytes land. Returns the displaced replicas.
   */
  private List<InventoryObject> writeOver(String key, long generation, ByteBuffer value) {
    return write(key, new Slice(0, 0, VALUE, 0), value);
  }

  /**
   * A WRITE of {@code value}'s first {@code slice.length()} bytes, a whole object of that size,
   * into {@code slice}.
   */
  private List<InventoryObject> write(String key, Slice slice, ByteBuffer value) {
    List<InventoryObject> displaced = new ArrayList<>();
    ByteBuffer bytes = value.duplicate().limit(slice.length());
    assertThat(
            inventory.admitWrite(
                new ObjectId(key, 1),
                slice,
                slice.length(),
                crc(bytes),
                1,
                Long.MAX_VALUE,
                now(),
                displaced,
                null))
        .isNull();
    spill.displaced(displaced, now());
    try {
      assertThat(inventory.awaitUnpinned(slice, TimeUnit.SECONDS.toNanos(WAIT_SECONDS))).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
    segment.view(slice.offset(), slice.length()).put(bytes);
    return displaced;
  }

  /**
   * The value the node would serve from its tier (DiskSpill#read, as READ_OBJECT does), or null.
   */
  private ByteBuffer readFromTier(String key, long generation) throws Exception {
    try (DiskTier.Staged staged = spill.read(key, generation)) {
      if (staged == null) {
        return null;
      }
      ByteBuffer copy = ByteBuffer.allocate(staged.value().remaining());
      copy.put(staged.value().duplicate()).flip();
      return copy;
    }
  }

  private static int crc(ByteBuffer value) {
    java.util.zip.CRC32C c = new java.util.zip.CRC32C();
    c.update(value.duplicate());
    return (int) c.getValue();
  }

  private static ByteBuffer random(long seed) {
    byte[] b = new byte[VALUE];
    new Random(seed).nextBytes(b);
    return ByteBuffer.wrap(b);
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
