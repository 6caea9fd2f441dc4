package io.kvpool.master;

import java.util.List;

/**
 * Key → slot of {@link ObjectTable}'s array, as two int arrays with open addressing (linear
 * probing, deletion by backward shift): each entry is the slot plus one (0: empty) and the key's
 * hash, so a probe touches an object only when the hashes match. A master holds one entry per
 * object, tens of millions: about 11–21 bytes each here against about 40 for a {@code HashMap}
 * entry (its node and its share of the table). Not thread-safe: the metadata lock guards it.
 */
final class KeyIndex {
  private static final int MIN_CAPACITY = 16;

  private final List<StoredObject> slots;
  private int[] entries = new int[MIN_CAPACITY];
  private int[] hashes = new int[MIN_CAPACITY];
  private int size;

  /** An index over {@code slots}, the table's array it names objects of. */
  KeyIndex(List<StoredObject> slots) {
    this.slots = slots;
  }

  /** The indexed object of {@code key}, or null. */
  StoredObject get(String key) {
    int h = key.hashCode();
    int mask = entries.length - 1;
    for (int i = home(h, mask); entries[i] != 0; i = (i + 1) & mask) {
      if (hashes[i] == h) {
        StoredObject o = slots.get(entries[i] - 1);
        if (o.key.equals(key)) {
          return o;
        }
      }
    }
    return null;
  }

  /** Indexes {@code key} at {@code slot}; a key already indexed now names this slot. */
  void put(String key, int slot) {
    if ((size + 1) * 4L > entries.length * 3L) {
      resize(entries.length * 2);
    }
    int h = key.hashCode();
    int mask = entries.length - 1;
    int i = home(h, mask);
    for (; entries[i] != 0; i = (i + 1) & mask) {
      if (hashes[i] == h && slots.get(entries[i] - 1).key.equals(key)) {
        entries[i] = slot + 1;
        return;
      }
    }
    entries[i] = slot + 1;
    hashes[i] = h;
    size++;
  }

  /** Points the entry of {@code key} that names slot {@code from} at slot {@code to}, if any. */
  void move(String key, int from, int to) {
    int i = find(key.hashCode(), from);
    if (i >= 0) {
      entries[i] = to + 1;
    }
  }

  /** Drops the entry of {@code key} that names slot {@code slot}, if any. */
  void remove(String key, int slot) {
    int i = find(key.hashCode(), slot);
    if (i < 0) {
      return;
    }
    size--;
    int mask = entries.length - 1;
    int hole = i;
    for (int j = (i + 1) & mask; entries[j] != 0; j = (j + 1) & mask) {
      // entry j may fill the hole if its home is not in the cyclic range (hole, j]
      if (((j - home(hashes[j], mask)) & mask) >= ((j - hole) & mask)) {
        entries[hole] = entries[j];
        hashes[hole] = hashes[j];
        hole = j;
      }
    }
    entries[hole] = 0;
    if (entries.length > MIN_CAPACITY && size * 8L < entries.length) {
      resize(entries.length / 2);
    }
  }

  int size() {
    return size;
  }

  private int find(int h, int slot) {
    int mask = entries.length - 1;
    for (int i = home(h, mask); entries[i] != 0; i = (i + 1) & mask) {
      if (entries[i] == slot + 1) {
        return i;
      }
    }
    return -1;
  }

  private static int home(int hash, int mask) {
    int x = hash * 0x9E3779B9; // spread String hashes, which differ mostly in their low bits
    return (x ^ (x >>> 16)) & mask;
  }

  private void resize(int capacity) {
    int[] oldEntries = entries;
    int[] oldHashes = hashes;
    entries = new int[capacity];
    hashes = new int[capacity];
    int mask = capacity - 1;
    for (int k = 0; k < oldEntries.length; k++) {
      if (oldEntries[k] != 0) {
        int i = home(oldHashes[k], mask);
        while (entries[i] != 0) {
          i = (i + 1) & mask;
        }
        entries[i] = oldEntries[k];
        hashes[i] = oldHashes[k];
      }
    }
  }
}
