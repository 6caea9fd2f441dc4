package io.kvpool.storage;

import io.kvpool.nativemem.NativeSegment;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.PutRef;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.Slice;
import io.kvpool.storage.ObjectInventory.ObjectId;
import io.kvpool.storage.disk.DiskTier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves replicas between a node's memory and its disk tier. The master decides: when it evicts a
 * replica of a node with a disk tier it frees the replica's memory range and tells the node (a
 * release "to disk"); the node writes the value to the tier and forgets the memory record. The
 * master may hand that range to a new put before the node heard of the release, so a WRITE that
 * displaces a complete replica spills it first, before the new bytes land ({@link #displaced}):
 * either way the value is on disk before its memory is reused. Spills that fail, and records the
 * tier loses later (reclaimed, corrupt), are queued for the master ({@link #takeDrops}), which
 * forgets those replicas.
 */
final class DiskSpill implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DiskSpill.class);

  /**
   * Drops kept for the master at most; beyond, the next registration's inventory tells it the same.
   */
  private static final int MAX_QUEUED_DROPS = 1_000_000;

  /** How long a release waits for a writer's spill of the replica it names (one record write). */
  private static final long SPILL_WAIT_MILLIS = 10_000;

  private final DiskTier tier;
  private final List<NativeSegment> segments;

  private final ObjectInventory inventory;
  private final ConcurrentLinkedQueue<PutRef> drops = new ConcurrentLinkedQueue<>();
  private final AtomicInteger queued = new AtomicInteger();

  /**
   * Runs before each spill, with the replica and whether a WRITE displaced it (else it is a
   * master's move): a seam for tests that hold a spill at that point, as a slow disk would. Does
   * nothing unless a test sets it.
   */
  volatile BiConsumer<ObjectId, Boolean> beforeSpill = (id, displaced) -> {};

  /**
   * Applies the master's releases in their order, off the master link's thread: a move to disk
   * writes the value, which must not hold up the node's heartbeats.
   */
  private final ExecutorService releases =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "storage-disk-releases");
            t.setDaemon(true);
            return t;
          });

  DiskSpill(DiskTier tier, List<NativeSegment> segments, ObjectInventory inventory) {
    this.tier = tier;
    this.segments = segments;
    this.inventory = inventory;
  }

  DiskTier tier() {
    return tier;
  }

  /** The tier's listener of records it lost. */
  void lost(List<DiskTier.ObjectRef> objects) {
    for (DiskTier.ObjectRef o : objects) {
      queueDrop(o.key(), o.generation());
    }
  }

  /**
   * The block metadata of a disk record (kept with the record, also across restarts), or null: a
   * new leader adopting it from this node's inventory announces it with it.
   */
  BlockMetadata metadataOf(DiskTier.ObjectRef ref) {
    return tier.metadataOf(ref);
  }

  private void queueDrop(String key, long generation) {
    if (queued.incrementAndGet() > MAX_QUEUED_DROPS) {
      drops.poll();
      queued.decrementAndGet();
    }
    drops.add(new PutRef(key, generation));
  }

  /** The drops to report now (at most {@code max}). */
  List<PutRef> takeDrops(int max) {
    List<PutRef> out = new ArrayList<>();
    PutRef p;
    while (out.size() < max && (p = drops.poll()) != null) {
      queued.decrementAndGet();
      out.add(p);
    }
    return out;
  }

  /**
   * The tier's record of (key, generation), staged and CRC-checked, or null. A replica a WRITE just
   * displaced from memory is waited for while that writer spills it (at most {@link
   * #SPILL_WAIT_MILLIS}): a read between its displacement and its record must find the record, not
   * be told the node holds nothing.
   */
  DiskTier.Staged read(String key, long generation) throws DiskTier.BusyException {
    awaitSpilled(key, generation);
    return tier.read(new DiskTier.ObjectRef(key, generation));
  }

  /**
   * As {@link #read}, the record checked where it lies, for a reply sent from the tier's file and
   * stopped through {@code onDelete} if the tier deletes that file meanwhile ({@link
   * DiskTier#check}).
   */
  DiskTier.Checked check(String key, long generation, Runnable onDelete)
      throws DiskTier.BusyException {
    awaitSpilled(key, generation);
    return tier.check(new DiskTier.ObjectRef(key, generation), onDelete);
  }

  /** The size of the tier's record of (key, generation), or -1 when it holds none (yet). */
  int sizeOf(String key, long generation) {
    return tier.sizeOf(new DiskTier.ObjectRef(key, generation));
  }

  private void awaitSpilled(String key, long generation) {
    try {
      inventory.awaitSpilled(new ObjectId(key, generation), SPILL_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes a complete replica held in memory to the tier: true once its record is written. */
  private boolean spill(InventoryObject replica, boolean displaced) {
    beforeSpill.accept(new ObjectId(replica.key(), replica.generation()), displaced);
    List<Slice> slices = new ArrayList<>(replica.slices());
    slices.sort(Comparator.comparingInt(Slice::valueOffset));
    ByteBuffer[] views = new ByteBuffer[slices.size()];
    for (int i = 0; i < views.length; i++) {
      Slice s = slices.get(i);
      views[i] = segments.get(s.segmentId()).view(s.offset(), s.length());
    }
    return tier.append(
        replica.key(),
        replica.generation(),
        replica.wantedReplicas(),
        replica.size(),
        replica.checksum(),
        replica.metadata(),
        views);
  }

  /**
   * Complete replicas a WRITE took the range of: spilled before its bytes land (the master may have
   * moved them to disk); one that cannot be is reported (the master forgets it if it thought it on
   * disk, else ignores it).
   */
  void displaced(List<InventoryObject> replicas, long nowMillis) {
    for (InventoryObject r : replicas) {
      ObjectId id = new ObjectId(r.key(), r.generation());
      boolean written = false;
      try {
        written = spill(r, true);
      } catch (RuntimeException e) {
        // a spill that fails in any way is a failed spill: the range must not stay closed
        LOG.warn(
            "event=spill_failed key={} generation={} reason=\"{}\"", r.key(), r.generation(), e);
      } finally {
        if (!written) {
          inventory.tombstoneDisplaced(id, nowMillis);
          queueDrop(r.key(), r.generation());
        }
        inventory.spillDone(id);
      }
    }
  }

  /**
   * Applies a master's release to memory and tier: at once when the object or this node's replica
   * goes; a move to disk on the tier's own thread, in order, as it writes the value.
   */
  void release(Release r, long nowMillis) {
    if (!r.toDisk()) {
      apply(r, nowMillis);
      return;
    }
    try {
      releases.execute(() -> apply(r, nowMillis));
    } catch (RejectedExecutionException e) {
      // the node is stopping: its next process re-registers with what it holds, and the master
      // releases again
    }
  }

  /**
   * Waits until the releases received so far are applied (at most {@code timeoutMillis}): true when
   * they are. For tests that check what a move left behind.
   */
  boolean releasesApplied(long timeoutMillis) throws InterruptedException {
    try {
      releases.submit(() -> {}).get(timeoutMillis, TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      return false;
    }
  }

  @Override
  public void close() {
    releases.shutdownNow();
  }

  private void apply(Release r, long nowMillis) {
    ObjectId id = new ObjectId(r.key(), r.generation());
    if (!r.toDisk()) {
      inventory.release(r, nowMillis);
      tier.remove(new DiskTier.ObjectRef(r.key(), r.generation()));
      return;
    }
    InventoryObject inMemory = inventory.replica(id);
    DiskTier.ObjectRef ref = new DiskTier.ObjectRef(r.key(), r.generation());
    // a WRITE may have displaced the replica since (it is then spilling it, or has written it and
    // overwritten the memory this spill checked: a record to find, not a replica to drop)
    boolean onDisk = inMemory != null && spill(inMemory, false);
    if (!onDisk) {
      try {
        inventory.awaitSpilled(id, SPILL_WAIT_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      onDisk = tier.contains(ref);
    }
    inventory.release(new Release(r.key(), r.generation(), false), nowMillis);
    if (!onDisk) {
      queueDrop(r.key(), r.generation());
    }
  }

  /** The tier's records as inventory entries (no slices), those also held in memory left out. */
  List<InventoryObject> inventory() {
    List<InventoryObject> out = new ArrayList<>();
    for (DiskTier.Held h : tier.snapshot()) {
      if (inventory.replica(new ObjectId(h.id().key(), h.id().generation())) == null) {
        out.add(
            new InventoryObject(
                h.id().key(),
                h.id().generation(),
                h.wantedReplicas(),
                h.size(),
                h.checksum(),
                List.of(),
                h.metadata()));
      }
    }
    return out;
  }
}
