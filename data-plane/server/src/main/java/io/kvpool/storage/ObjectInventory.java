package io.kvpool.storage;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.Slice;
import io.kvpool.protocol.Tombstone;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the node holds, by object (key and generation) — never by range alone: complete replicas
 * (checksum-verified, the node's receipts), writes in progress, and tombstones of objects it was
 * told are deleted. It answers whether a WRITE may start (not for a deleted or already complete
 * object), whether a READ may be served (only inside a slice of that very object), and what the
 * node re-registers with after a master change. A write drops every record overlapping its range
 * (the master reuses a range once it dropped the copy there, possibly before its release reaches
 * this node) and refuses the late writers of the complete objects it overwrites, without reporting
 * those as deleted. It also knows which ranges replies are sending from now ({@link ReadPin}): an
 * object's going revokes its replies, and a WRITE's bytes land only once no reply reads its range.
 * Thread-safe.
 */
final class ObjectInventory {
  /** An object: key and generation. */
  record ObjectId(String key, long generation) {}

  /** A replica on this node: complete, or still being written (slices received so far). */
  private static final class Held {
    final ObjectId id;
    final int size;
    final int checksum;
    final int wantedReplicas;
    final List<Slice> slices = new ArrayList<>(1);
    final long expiresAtMillis; // of the grant, for writes in progress
    BlockMetadata metadata; // as a WRITE of the object carried it (protocol 2.5), null: none
    boolean complete;
    boolean sentFromFiles; // a reply gave its pages to a socket (sendfile): replaced when it goes

    Held(ObjectId id, int size, int checksum, int wantedReplicas, long expiresAtMillis) {
      this.id = id;
      this.size = size;
      this.checksum = checksum;
      this.wantedReplicas = wantedReplicas;
      this.expiresAtMillis = expiresAtMillis;
    }

    long covered() {
      long c = 0;
      for (Slice s : slices) {
        c += s.length();
      }
      return c;
    }

    InventoryObject toInventory() {
      return new InventoryObject(
          id.key, id.generation, wantedReplicas, size, checksum, List.copyOf(slices), metadata);
    }
  }

  private record Range(Held held, Slice slice) {}

  /**
   * What the node refuses of a key: writes of generations up to {@code generation}. {@code
   * deletedGeneration} is the newest generation the master said is deleted (-1: none), the only
   * part the node reports when it registers. An object whose range a write reused is refused here
   * too, so its late writers cannot land, but it is not reported: the master reused that range
   * because it had already dropped this copy, and the object may well live on other nodes (reported
   * as deleted, a new leader would delete those copies too). Such an overwritten {@code generation}
   * still admits a write whose grant expires after {@code grantsExpiringBy}, the latest grant the
   * overwritten replica was written under: only the master issues grants, a later one is for a copy
   * it wants now (a repair into a new range), and every late writer holds an older one. In memory
   * only: a warm restart keeps deletions alone.
   */
  private record Tomb(
      long generation, long deletedGeneration, long grantsExpiringBy, long atMillis) {
    Tomb merge(long refused, long deleted, long grantExpiry, long nowMillis) {
      long expiry =
          refused > generation
              ? grantExpiry
              : refused == generation ? Math.max(grantsExpiringBy, grantExpiry) : grantsExpiringBy;
      return new Tomb(
          Math.max(generation, refused), Math.max(deletedGeneration, deleted), expiry, nowMillis);
    }

    boolean reportsDeletion() {
      return deletedGeneration >= 0;
    }

    /** Whether a write of {@code writeGeneration} under a grant expiring then is refused. */
    boolean refuses(long writeGeneration, long grantExpiresAtMillis) {
      if (generation < writeGeneration) {
        return false;
      }
      return deletedGeneration >= writeGeneration
          || generation > writeGeneration
          || grantExpiresAtMillis <= grantsExpiringBy;
    }
  }

  /**
   * A slice of a complete replica that replies are sending from now. Live pinned slices of one
   * segment never overlap unless they are the same slice: a slice is pinned only while its replica
   * is complete in the inventory, and a WRITE over a pinned range receives its bytes (so completes
   * a replica there) only once the pins are gone.
   */
  static final class PinnedSlice {
    private final Held held;
    private final Slice slice;
    private final List<ReadPin> readers = new ArrayList<>(2);

    private PinnedSlice(Held held, Slice slice) {
      this.held = held;
      this.slice = slice;
    }
  }

  private final Map<ObjectId, Held> byObject = new HashMap<>();

  /**
   * The replicas of {@link #byObject} still being written: what {@link #expireWrites} looks at, so
   * its sweeps under this lock cost the writes in progress, not every replica the node holds.
   */
  private final Map<ObjectId, Held> writing = new HashMap<>();

  /** Each segment's replica ranges by offset, indexed by segment id. */
  private final List<TreeMap<Long, Range>> bySegment = new ArrayList<>();

  private final LinkedHashMap<String, Tomb> tombstones = new LinkedHashMap<>();
  private final Map<Integer, TreeMap<Long, PinnedSlice>> pinned = new HashMap<>();
  private int waitingWriters;

  /**
   * Displaced replicas a writer is spilling to the disk tier now ({@link #admitWrite} with a
   * displaced list), with their slices: no other WRITE's bytes land there until the spill is done
   * ({@link #awaitUnpinned}), as the master may have granted parts of the range to several puts.
   */
  private final Map<ObjectId, List<Slice>> spilling = new HashMap<>();

  private final long tombstoneTtlMillis;
  private final int maxTombstones;
  private long tombstonesDropped;
  private int complete;

  /**
   * Gives the pages of a slice new ones, for a replica whose bytes a reply sent from the segment's
   * file: the kernel may still hold the old pages for a reader, and they must not change under it.
   */
  private final Consumer<Slice> replacePages;

  ObjectInventory(long tombstoneTtlMillis, int maxTombstones) {
    this(tombstoneTtlMillis, maxTombstones, s -> {});
  }

  ObjectInventory(long tombstoneTtlMillis, int maxTombstones, Consumer<Slice> replacePages) {
    this.tombstoneTtlMillis = tombstoneTtlMillis;
    this.maxTombstones = maxTombstones;
    this.replacePages = replacePages;
  }

  /**
   * Admits a WRITE of {@code slice} of object {@code id}: null when it may proceed (its range is
   * now reserved for it), else why not. {@code nowMillis} is local time (tombstone ages).
   */
  synchronized String admitWrite(
      ObjectId id,
      Slice slice,
      int size,
      int checksum,
      int wantedReplicas,
      long expiresAtMillis,
      long nowMillis) {
    return admitWrite(
        id, slice, size, checksum, wantedReplicas, expiresAtMillis, nowMillis, null, null);
  }

  /**
   * As {@link #admitWrite(ObjectId, Slice, int, int, int, long, long)}; with {@code displaced} (a
   * node with a disk tier) the complete replicas whose range the write takes are added to it
   * instead of being tombstoned, for the caller to spill before the write's bytes land ({@link
   * #tombstoneDisplaced} those it could not). {@code metadata}: the object's block metadata the
   * write carried (null: none); the replica keeps the first a write of it brought.
   */
  synchronized String admitWrite(
      ObjectId id,
      Slice slice,
      int size,
      int checksum,
      int wantedReplicas,
      long expiresAtMillis,
      long nowMillis,
      List<InventoryObject> displaced,
      BlockMetadata metadata) {
    Tomb t = tombstones.get(id.key);
    if (t != null && t.refuses(id.generation, expiresAtMillis)) {
      return "object "
          + id.key
          + " generation "
          + id.generation
          + (t.deletedGeneration >= id.generation
              ? " was deleted"
              : " was overwritten on this node (its range was reused)")
          + "; start a new put";
    }
    Held held = byObject.get(id);
    if (held != null && held.complete) {
      return "this node already holds a complete replica of "
          + id.key
          + " generation "
          + id.generation;
    }
    dropOverlapping(slice, id, nowMillis, displaced);
    if (held == null) {
      held = new Held(id, size, checksum, wantedReplicas, expiresAtMillis);
      byObject.put(id, held);
      writing.put(id, held);
    } else if (held.size != size || held.checksum != checksum) {
      return "slices of "
          + id.key
          + " generation "
          + id.generation
          + " disagree on the value's size or checksum";
    }
    if (held.metadata == null) {
      held.metadata = metadata;
    }
    held.slices.add(slice);
    segment(slice.segmentId()).put(slice.offset(), new Range(held, slice));
    return null;
  }

  /**
   * The slices of the object in value order when its bytes now cover the value (check its CRC),
   * else null.
   */
  synchronized List<Slice> completedBy(ObjectId id) {
    Held held = byObject.get(id);
    if (held == null || held.complete || held.covered() != held.size) {
      return null;
    }
    List<Slice> slices = new ArrayList<>(held.slices);
    slices.sort(Comparator.comparingInt(Slice::valueOffset));
    return slices;
  }

  /**
   * Records the replica as complete after its checksum matched; false if it was dropped meanwhile.
   */
  synchronized boolean markComplete(ObjectId id) {
    Held held = byObject.get(id);
    if (held == null || held.complete) {
      return false;
    }
    held.complete = true;
    complete++;
    writing.remove(id);
    return true;
  }

  /** Forgets an object's slices (a failed or corrupt write). */
  synchronized void discard(ObjectId id) {
    Held held = byObject.remove(id);
    if (held != null) {
      unindex(held);
    }
  }

  /**
   * Forgets an object's slices unless its replica is complete (a batch cut off after this write
   * verified).
   */
  synchronized void discardIncomplete(ObjectId id) {
    Held held = byObject.get(id);
    if (held != null && !held.complete) {
      byObject.remove(id);
      unindex(held);
    }
  }

  /**
   * Whether a READ of [offset, offset + length) in the segment lies inside a complete replica of
   * the object.
   */
  synchronized boolean holds(ObjectId id, int segmentId, long offset, int length) {
    Held held = byObject.get(id);
    if (held == null || !held.complete) {
      return false;
    }
    for (Slice s : held.slices) {
      if (s.segmentId() == segmentId && offset >= s.offset() && offset + length <= s.end()) {
        return true;
      }
    }
    return false;
  }

  /**
   * Pins the slice of a complete replica of the object that holds [offset, offset + length) of the
   * segment for a reply about to send those bytes: true, or false when the node holds no such
   * replica (as {@link #holds}). Undo with {@link #unpin} once the reply was sent or failed.
   */
  synchronized boolean pin(ReadPin reply, ObjectId id, int segmentId, long offset, int length) {
    Held held = byObject.get(id);
    if (held == null || !held.complete) {
      return false;
    }
    for (Slice s : held.slices) {
      if (s.segmentId() == segmentId && offset >= s.offset() && offset + length <= s.end()) {
        TreeMap<Long, PinnedSlice> seg = pinned.computeIfAbsent(segmentId, k -> new TreeMap<>());
        PinnedSlice p = seg.computeIfAbsent(s.offset(), k -> new PinnedSlice(held, s));
        if (p.held != held) {
          // a reply still sends a gone object's bytes from here: never pin two objects at once
          return false;
        }
        p.readers.add(reply);
        reply.slices.add(p);
        return true;
      }
    }
    return false;
  }

  /**
   * Notes that a pinned reply sends its slices' pages from the segments' files: when their replicas
   * go, those pages are replaced ({@link #unindex}) rather than written again in place.
   */
  synchronized void sentFromFiles(ReadPin reply) {
    for (PinnedSlice p : reply.slices) {
      p.held.sentFromFiles = true;
    }
  }

  /**
   * Lets go of the slices a reply pinned (it was sent, or failed): WRITEs waiting for them may go
   * on.
   */
  synchronized void unpin(ReadPin reply) {
    for (PinnedSlice p : reply.slices) {
      p.readers.remove(reply);
      if (p.readers.isEmpty()) {
        TreeMap<Long, PinnedSlice> seg = pinned.get(p.slice.segmentId());
        seg.remove(p.slice.offset(), p);
        if (seg.isEmpty()) {
          pinned.remove(p.slice.segmentId());
        }
      }
    }
    reply.slices.clear();
    if (waitingWriters > 0) {
      notifyAll();
    }
  }

  /**
   * Waits until no reply sends bytes from {@code slice}'s range, stopping every reply that still
   * does, and no displaced replica is being spilled from it: true, or false when one still was
   * after {@code timeoutNanos}. A WRITE admitted into the range calls this before its bytes land,
   * so that no byte of the new object goes out in a reply of the object that held the range before,
   * nor into that object's disk record.
   */
  synchronized boolean awaitUnpinned(Slice slice, long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    while (true) {
      List<PinnedSlice> overlapping = pinnedOverlapping(slice);
      if (overlapping.isEmpty() && !spillingOverlaps(slice)) {
        return true;
      }
      for (PinnedSlice p : overlapping) {
        p.readers.forEach(ReadPin::revoke);
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      waitingWriters++;
      try {
        wait(Math.max(1, left / 1_000_000));
      } finally {
        waitingWriters--;
      }
    }
  }

  private boolean spillingOverlaps(Slice slice) {
    for (List<Slice> slices : spilling.values()) {
      for (Slice s : slices) {
        if (s.segmentId() == slice.segmentId()
            && s.offset() < slice.end()
            && slice.offset() < s.end()) {
          return true;
        }
      }
    }
    return false;
  }

  /** How many slices replies are sending from now. */
  synchronized int pinnedSlices() {
    int n = 0;
    for (TreeMap<Long, PinnedSlice> seg : pinned.values()) {
      n += seg.size();
    }
    return n;
  }

  private List<PinnedSlice> pinnedOverlapping(Slice slice) {
    TreeMap<Long, PinnedSlice> seg = pinned.get(slice.segmentId());
    return seg == null ? List.of() : new ArrayList<>(overlapping(seg, slice, p -> p.slice));
  }

  /** The complete replica's slices and figures, or null. */
  synchronized InventoryObject replica(ObjectId id) {
    Held held = byObject.get(id);
    return held == null || !held.complete ? null : held.toInventory();
  }

  /**
   * Applies a master's release: forget the object; remember it as deleted when it is gone for good.
   */
  synchronized void release(Release r, long nowMillis) {
    ObjectId id = new ObjectId(r.key(), r.generation());
    Held held = byObject.remove(id);
    if (held != null) {
      unindex(held);
    }
    if (r.deleted()) {
      tombstone(id, true, Long.MAX_VALUE, nowMillis);
    }
  }

  /** Drops writes in progress whose grants expired ({@code masterNowMillis} in master time). */
  synchronized void expireWrites(long masterNowMillis) {
    for (Iterator<Held> it = writing.values().iterator(); it.hasNext(); ) {
      Held h = it.next();
      if (h.expiresAtMillis < masterNowMillis) {
        it.remove();
        byObject.remove(h.id);
        unindex(h);
      }
    }
  }

  synchronized void expireTombstones(long nowMillis) {
    for (Iterator<Tomb> it = tombstones.values().iterator(); it.hasNext(); ) {
      if (nowMillis - it.next().atMillis < tombstoneTtlMillis) {
        return;
      }
      it.remove();
    }
  }

  /**
   * Takes a complete replica a previous process of this node left in the memory files (a warm
   * restart), after its bytes were verified. Null when taken, else why not (it overlaps a replica
   * taken before it).
   */
  synchronized String adopt(InventoryObject replica) {
    ObjectId id = new ObjectId(replica.key(), replica.generation());
    if (byObject.containsKey(id)) {
      return "listed twice";
    }
    for (Slice s : replica.slices()) {
      if (!overlapping(segment(s.segmentId()), s, Range::slice).isEmpty()) {
        return "its range ["
            + s.offset()
            + ", "
            + s.end()
            + ") of segment "
            + s.segmentId()
            + " overlaps another replica";
      }
    }
    Held held =
        new Held(id, replica.size(), replica.checksum(), replica.wantedReplicas(), Long.MAX_VALUE);
    held.metadata = replica.metadata();
    for (Slice s : replica.slices()) {
      held.slices.add(s);
      segment(s.segmentId()).put(s.offset(), new Range(held, s));
    }
    held.complete = true;
    complete++;
    byObject.put(id, held);
    return null;
  }

  /** Takes a tombstone a previous process of this node kept, with its original time. */
  synchronized void restoreTombstone(String key, long generation, long atMillis) {
    Tomb old = tombstones.get(key);
    if (old == null || old.deletedGeneration < generation) {
      tombstones.put(
          key,
          old == null
              ? new Tomb(generation, generation, Long.MAX_VALUE, atMillis)
              : old.merge(generation, generation, Long.MAX_VALUE, atMillis));
    }
  }

  /**
   * The tombstones of deleted objects with the local time each was made, oldest first (what a warm
   * restart keeps; the writers an overwrite refuses hold grants under this process's registration,
   * which a restart ends).
   */
  synchronized List<InventoryFile.SavedTombstone> savedTombstones() {
    List<InventoryFile.SavedTombstone> out = new ArrayList<>(tombstones.size());
    tombstones.forEach(
        (k, t) -> {
          if (t.reportsDeletion()) {
            out.add(new InventoryFile.SavedTombstone(k, t.deletedGeneration, t.atMillis));
          }
        });
    return out;
  }

  /**
   * What the node re-registers with: its complete replicas and the tombstones of objects the master
   * deleted.
   */
  synchronized Snapshot snapshot() {
    List<InventoryObject> objects = new ArrayList<>(complete);
    for (Held h : byObject.values()) {
      if (h.complete) {
        objects.add(h.toInventory());
      }
    }
    List<Tombstone> tombs = new ArrayList<>(tombstones.size());
    tombstones.forEach(
        (k, t) -> {
          if (t.reportsDeletion()) {
            tombs.add(new Tombstone(k, t.deletedGeneration));
          }
        });
    return new Snapshot(objects, tombs);
  }

  /** The node's inventory at one moment. */
  record Snapshot(List<InventoryObject> objects, List<Tombstone> tombstones) {}

  synchronized int completeCount() {
    return complete;
  }

  synchronized int tombstoneCount() {
    return tombstones.size();
  }

  synchronized long tombstonesDropped() {
    return tombstonesDropped;
  }

  /** Whether a writer that displaced the replica {@code id} is spilling it now. */
  synchronized boolean spilling(ObjectId id) {
    return spilling.containsKey(id);
  }

  /** The writer that displaced the replica is done spilling it (written or not). */
  synchronized void spillDone(ObjectId id) {
    if (spilling.remove(id) != null) {
      notifyAll();
    }
  }

  /**
   * Waits while a writer spills the displaced replica {@code id} (at most {@code timeoutMillis}): a
   * release that finds it neither in memory nor on disk may just have come between its displacement
   * and its record.
   */
  synchronized void awaitSpilled(ObjectId id, long timeoutMillis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMillis;
    long left;
    while (spilling.containsKey(id) && (left = deadline - System.currentTimeMillis()) > 0) {
      wait(left);
    }
  }

  /**
   * Remembers a displaced replica that could not be kept on disk as deleted (as a write without a
   * tier does).
   */
  synchronized void tombstoneDisplaced(ObjectId id, long nowMillis) {
    tombstone(id, false, Long.MAX_VALUE, nowMillis);
  }

  private void dropOverlapping(
      Slice slice, ObjectId writer, long nowMillis, List<InventoryObject> displaced) {
    List<Held> victims = new ArrayList<>(1);
    for (Range r : overlapping(segment(slice.segmentId()), slice, Range::slice)) {
      if (!r.held().id.equals(writer)) {
        victims.add(r.held());
      }
    }
    for (Held h : victims) {
      boolean wasComplete = h.complete;
      if (wasComplete && displaced != null) {
        displaced.add(h.toInventory());
        spilling.put(h.id, List.copyOf(h.slices));
      }
      byObject.remove(h.id);
      unindex(h);
      if (wasComplete && displaced == null) {
        // its range was reused: its late writers must be refused here
        tombstone(h.id, false, h.expiresAtMillis, nowMillis);
      }
    }
  }

  /**
   * Forgets a replica's slices; replies still sending its bytes are stopped (their connections
   * shut, so nothing more is queued on them), and pages that replies handed to sockets are
   * replaced, so that a later object's bytes never reach a reader of this one.
   */
  private void unindex(Held held) {
    writing.remove(held.id, held);
    if (held.complete) {
      complete--;
      held.complete = false;
    }
    for (Slice s : held.slices) {
      TreeMap<Long, PinnedSlice> readers = pinned.get(s.segmentId());
      PinnedSlice p = readers == null ? null : readers.get(s.offset());
      if (p != null && p.held == held) {
        p.readers.forEach(ReadPin::revoke);
      }
      TreeMap<Long, Range> seg =
          s.segmentId() < bySegment.size() ? bySegment.get(s.segmentId()) : null;
      Range r = seg == null ? null : seg.remove(s.offset());
      if (r != null && r.held() != held) {
        seg.put(s.offset(), r); // another replica's range starts there: not this one's to forget
      }
    }
    if (held.sentFromFiles) {
      held.sentFromFiles = false;
      held.slices.forEach(replacePages);
    }
  }

  private void tombstone(ObjectId id, boolean deleted, long grantExpiry, long nowMillis) {
    Tomb old = tombstones.remove(id.key);
    long deletedGeneration = deleted ? id.generation : -1;
    tombstones.put(
        id.key,
        old == null
            ? new Tomb(id.generation, deletedGeneration, grantExpiry, nowMillis)
            : old.merge(id.generation, deletedGeneration, grantExpiry, nowMillis));
    if (tombstones.size() > maxTombstones) {
      Iterator<Tomb> it = tombstones.values().iterator();
      it.next();
      it.remove();
      tombstonesDropped++;
    }
  }

  private TreeMap<Long, Range> segment(int id) {
    while (bySegment.size() <= id) {
      bySegment.add(new TreeMap<>());
    }
    return bySegment.get(id);
  }

  /**
   * The ranges of {@code seg} that overlap {@code slice}, in offset order: a view, one descent for
   * the range that may start before the slice and one for the walk from there.
   */
  private static <T> Collection<T> overlapping(
      TreeMap<Long, T> seg, Slice slice, Function<T, Slice> sliceOf) {
    Map.Entry<Long, T> before = seg.floorEntry(slice.offset());
    long from =
        before != null && sliceOf.apply(before.getValue()).end() > slice.offset()
            ? before.getKey()
            : slice.offset();
    return seg.subMap(from, true, slice.end(), false).values();
  }
}
