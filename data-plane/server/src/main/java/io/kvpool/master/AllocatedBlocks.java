package io.kvpool.master;

import java.util.Arrays;

/**
 * The allocated blocks of one {@link SegmentAllocator}: block offset → block length, in two
 * primitive arrays with open addressing (linear probing, deletion by backward shift). A master
 * holds one entry per replica range, tens of millions of them: about 16–32 bytes each here against
 * 72 for a {@code HashMap<Long, Long>} entry (its node, a boxed offset and its share of the table).
 * Not thread-safe: the metadata lock guards it.
 */
final class AllocatedBlocks {
  private static final long EMPTY = -1; // offsets are never negative
  private static final int MIN_CAPACITY = 16;

  private long[] offsets = emptyTable(MIN_CAPACITY);
  private int[] lengths = new int[MIN_CAPACITY];
  private int size;

  private static long[] emptyTable(int capacity) {
    long[] t = new long[capacity];
    Arrays.fill(t, EMPTY);
    return t;
  }

  int size() {
    return size;
  }

  /** Records the block at {@code offset} (not yet present) of {@code length} bytes. */
  void put(long offset, long length) {
    if (offset < 0 || length <= 0 || length > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("block at " + offset + " of " + length + " bytes");
    }
    if ((size + 1) * 4L > offsets.length * 3L) {
      resize(offsets.length * 2);
    }
    int i = find(offset);
    if (offsets[i] == offset) {
      throw new IllegalStateException("a block at offset " + offset + " is already allocated");
    }
    offsets[i] = offset;
    lengths[i] = (int) length;
    size++;
  }

  /** The length of the block at {@code offset}, or -1 when no block starts there. */
  long length(long offset) {
    if (offset < 0) {
      return -1;
    }
    int i = find(offset);
    return offsets[i] == offset ? lengths[i] : -1;
  }

  boolean contains(long offset) {
    return offset >= 0 && offsets[find(offset)] == offset;
  }

  /** Removes the block at {@code offset}; its length, or -1 when no block starts there. */
  long remove(long offset) {
    if (offset < 0) {
      return -1;
    }
    int i = find(offset);
    if (offsets[i] != offset) {
      return -1;
    }
    long length = lengths[i];
    size--;
    // backward shift: move later entries of the probe run into the hole so no lookup stops early
    int mask = offsets.length - 1;
    int hole = i;
    for (int j = (i + 1) & mask; offsets[j] != EMPTY; j = (j + 1) & mask) {
      int home = slot(offsets[j], mask);
      // entry j may fill the hole if its home is not in the cyclic range (hole, j]
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        offsets[hole] = offsets[j];
        lengths[hole] = lengths[j];
        hole = j;
      }
    }
    offsets[hole] = EMPTY;
    if (offsets.length > MIN_CAPACITY && size * 8L < offsets.length) {
      resize(offsets.length / 2);
    }
    return length;
  }

  /** The slot holding {@code offset}, or the empty slot where it would go. */
  private int find(long offset) {
    int mask = offsets.length - 1;
    int i = slot(offset, mask);
    while (offsets[i] != EMPTY && offsets[i] != offset) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private static int slot(long offset, int mask) {
    long h = offset * 0x9E3779B97F4A7C15L; // Fibonacci hashing: aligned offsets spread well
    return (int) (h ^ (h >>> 32)) & mask;
  }

  private void resize(int capacity) {
    long[] oldOffsets = offsets;
    int[] oldLengths = lengths;
    offsets = emptyTable(capacity);
    lengths = new int[capacity];
    for (int i = 0; i < oldOffsets.length; i++) {
      if (oldOffsets[i] != EMPTY) {
        int j = find(oldOffsets[i]);
        offsets[j] = oldOffsets[i];
        lengths[j] = oldLengths[i];
      }
    }
  }
}
