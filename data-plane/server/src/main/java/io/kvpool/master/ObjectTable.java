package io.kvpool.master;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;

/**
 * The objects, one per key: a compact index for lookups ({@link KeyIndex}), an array for O(1)
 * random sampling (eviction) and bounded sweeps, the pending puts in deadline order, and counts
 * kept as objects come and go so that status and metrics never scan the table. Every change of what
 * gets can find — an object becoming readable or ceasing to be — passes here and is told to the
 * {@link ResidencyListener} (KV events). Guarded by the metadata lock.
 */
final class ObjectTable {
  private ResidencyListener residency = ResidencyListener.NONE;
  private final List<StoredObject> slots = new ArrayList<>();
  private final KeyIndex byKey = new KeyIndex(slots);

  /**
   * Each slot's object's {@code lastAccessMillis}, kept beside {@link #slots}: eviction orders its
   * samples by these without touching the objects, each a likely cache miss in a large table, and
   * then reads only the oldest ones. Written with the field, through {@link #add} and {@link
   * #touched}.
   */
  private long[] lastAccess = new long[64];

  /** Insertion order is deadline order: every put gets the same pending timeout. */
  private final LinkedHashSet<StoredObject> pending = new LinkedHashSet<>();

  private final int[] wantedCounts = new int[256];
  private int pinned;
  private int underReplicated;
  private int onDiskCount;
  private long completeBytes;

  void listen(ResidencyListener listener) {
    residency = listener;
  }

  StoredObject get(String key) {
    return byKey.get(key);
  }

  void add(StoredObject o) {
    o.slot = slots.size();
    slots.add(o);
    if (o.slot == lastAccess.length) {
      lastAccess = Arrays.copyOf(lastAccess, lastAccess.length * 2);
    }
    lastAccess[o.slot] = o.lastAccessMillis;
    byKey.put(o.key, o.slot);
    if (!o.complete()) {
      pending.add(o);
    } else {
      completeBytes += o.size;
    }
    wantedCounts[o.wantedReplicas]++;
    pinned += o.pinned ? 1 : 0;
    if (o.visible()) {
      announceStored(o);
    }
  }

  void remove(StoredObject o) {
    if (o.slot < 0 || byKey.get(o.key) != o) {
      return;
    }
    byKey.remove(o.key, o.slot);
    StoredObject last = slots.remove(slots.size() - 1);
    if (last != o) {
      byKey.move(last.key, last.slot, o.slot);
      slots.set(o.slot, last);
      lastAccess[o.slot] = last.lastAccessMillis;
      last.slot = o.slot;
    }
    o.slot = -1;
    recount(o);
    if (!o.complete()) {
      pending.remove(o);
    } else {
      completeBytes -= o.size;
    }
    wantedCounts[o.wantedReplicas]--;
    pinned -= o.pinned ? 1 : 0;
    if (o.visible()) {
      onDiskCount -= o.announcedOnDisk ? 1 : 0;
      residency.removed(o.resident());
    }
  }

  void markComplete(StoredObject o) {
    if (!o.complete()) {
      boolean wasVisible = o.visible();
      pending.remove(o);
      o.markComplete();
      completeBytes += o.size;
      recount(o);
      if (!wasVisible && o.slot >= 0) {
        announceStored(o);
      }
    }
  }

  /**
   * Records that {@code nodeId} committed its replica of pending {@code o}: its first commit makes
   * it readable.
   */
  void commit(StoredObject o, String nodeId) {
    boolean wasVisible = o.visible();
    o.committedBy(nodeId);
    if (!wasVisible && o.slot >= 0) {
      announceStored(o);
    }
  }

  private void announceStored(StoredObject o) {
    o.announcedOnDisk = o.onDiskOnly();
    onDiskCount += o.announcedOnDisk ? 1 : 0;
    residency.stored(o.resident());
  }

  /**
   * Re-evaluates, after its replicas or its state changed, whether {@code o} counts as
   * under-replicated — in the table, complete, with fewer replicas than it wants — and, for a
   * readable object with replicas, whether its medium changed (all replicas on disk, or any in
   * memory), which is then announced. The counts are the state's own, never a work queue's.
   */
  void recount(StoredObject o) {
    boolean under = o.slot >= 0 && o.complete() && o.replicaCount() < o.wantedReplicas;
    if (under != o.countedUnderReplicated) {
      o.countedUnderReplicated = under;
      underReplicated += under ? 1 : -1;
    }
    if (o.slot >= 0 && o.visible() && o.replicaCount() > 0) {
      boolean onDisk = o.onDiskOnly();
      if (onDisk != o.announcedOnDisk) {
        o.announcedOnDisk = onDisk;
        onDiskCount += onDisk ? 1 : -1;
        residency.tierChanged(o.resident());
      }
    }
  }

  void setPinned(StoredObject o, boolean value) {
    if (o.pinned != value) {
      o.pinned = value;
      pinned += value ? 1 : -1;
    }
  }

  /** Pending puts whose deadline passed, oldest first, at most {@code max}. */
  List<StoredObject> expiredPending(long nowMillis, int max) {
    List<StoredObject> out = new ArrayList<>();
    for (Iterator<StoredObject> it = pending.iterator(); it.hasNext() && out.size() < max; ) {
      StoredObject o = it.next();
      if (o.pendingDeadlineMillis() >= nowMillis) {
        break;
      }
      out.add(o);
    }
    return out;
  }

  /** Records an access to {@code o} now (a get, a completed put), in the table or not yet. */
  void touched(StoredObject o, long nowMillis) {
    o.lastAccessMillis = nowMillis;
    if (o.slot >= 0) {
      lastAccess[o.slot] = nowMillis;
    }
  }

  /** A uniformly random slot of a table that is not empty. */
  int sampleSlot(Random random) {
    return random.nextInt(slots.size());
  }

  /** The last access of the object in slot {@code i}, read without touching the object. */
  long lastAccess(int i) {
    return lastAccess[i];
  }

  /**
   * The object in slot {@code i} (sweeps walk the slots; a removal moves the last object into the
   * freed slot).
   */
  StoredObject slot(int i) {
    return i < slots.size() ? slots.get(i) : null;
  }

  int size() {
    return slots.size();
  }

  int pendingCount() {
    return pending.size();
  }

  /**
   * Complete objects with fewer replicas than they want (replicas on dead nodes count until a sweep
   * drops them).
   */
  int underReplicatedCount() {
    return underReplicated;
  }

  /** Readable objects whose every replica is on a disk tier (their medium is the disk). */
  int onDiskCount() {
    return onDiskCount;
  }

  int pinnedCount() {
    return pinned;
  }

  long completeValueBytes() {
    return completeBytes;
  }

  /** The largest replica count any object wants (a drain must leave that many other nodes). */
  int maxWantedReplicas() {
    for (int i = wantedCounts.length - 1; i > 0; i--) {
      if (wantedCounts[i] > 0) {
        return i;
      }
    }
    return 0;
  }

  /**
   * Every object (pending included): O(n), an array copy; for re-announcing residency, tests and
   * diagnostics.
   */
  List<StoredObject> all() {
    return List.copyOf(slots);
  }
}
