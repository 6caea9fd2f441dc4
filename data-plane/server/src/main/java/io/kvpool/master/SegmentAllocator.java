package io.kvpool.master;

import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Offset allocator for one storage segment: best-fit over a free list indexed by size, coalescing
 * neighbours on free. Blocks are aligned to {@link #ALIGNMENT} bytes so values start on cache-line
 * boundaries. Not thread-safe: the master's metadata lock guards it.
 */
public final class SegmentAllocator {
  public static final long ALIGNMENT = 64;

  private record Block(long offset, long length) {
    long end() {
      return offset + length;
    }
  }

  private final long size;
  private final TreeMap<Long, Block> freeByOffset = new TreeMap<>();
  private final TreeSet<Block> freeBySize =
      new TreeSet<>(Comparator.comparingLong(Block::length).thenComparingLong(Block::offset));
  private final AllocatedBlocks allocated = new AllocatedBlocks();
  private long used;

  public SegmentAllocator(long size) {
    if (size < ALIGNMENT) {
      throw new IllegalArgumentException(
          "segment size " + size + " is smaller than the " + ALIGNMENT + "-byte alignment");
    }
    this.size = size - size % ALIGNMENT;
    addFree(new Block(0, this.size));
  }

  /**
   * Bytes a value of {@code length} occupies (a zero-length value still takes one aligned unit).
   */
  public static long blockSize(long length) {
    long l = Math.max(length, 1);
    return (l + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
  }

  /**
   * Offset of a new block holding {@code length} bytes, or -1 when no free block is large enough.
   */
  public long allocate(long length) {
    long need = blockSize(length);
    Block fit = freeBySize.ceiling(new Block(Long.MIN_VALUE, need));
    if (fit == null) {
      return -1;
    }
    removeFree(fit);
    if (fit.length() > need) {
      addFree(new Block(fit.offset() + need, fit.length() - need));
    }
    allocated.put(fit.offset(), need);
    used += need;
    return fit.offset();
  }

  /**
   * Claims exactly [offset, offset + blockSize(length)) if it is entirely free (used when a node
   * re-registers).
   */
  public boolean reserve(long offset, long length) {
    long need = blockSize(length);
    if (offset < 0 || offset % ALIGNMENT != 0) {
      return false;
    }
    Map.Entry<Long, Block> e = freeByOffset.floorEntry(offset);
    if (e == null || e.getValue().end() < offset + need) {
      return false;
    }
    Block b = e.getValue();
    removeFree(b);
    if (b.offset() < offset) {
      addFree(new Block(b.offset(), offset - b.offset()));
    }
    if (b.end() > offset + need) {
      addFree(new Block(offset + need, b.end() - offset - need));
    }
    allocated.put(offset, need);
    used += need;
    return true;
  }

  /**
   * Splits the allocated block that starts at {@code offset} into two allocated blocks, [offset,
   * at) and [at, end): an extent's range is carved into the objects put into it (protocol 2.4).
   * False when no block starts at {@code offset} or {@code at} is not an aligned point inside it.
   */
  public boolean split(long offset, long at) {
    long length = allocated.length(offset);
    if (length < 0 || at <= offset || at >= offset + length || at % ALIGNMENT != 0) {
      return false;
    }
    allocated.remove(offset);
    allocated.put(offset, at - offset);
    allocated.put(at, offset + length - at);
    return true;
  }

  /** The length of the allocated block starting at {@code offset}, or -1. */
  public long allocatedLength(long offset) {
    return allocated.length(offset);
  }

  public boolean isAllocated(long offset) {
    return allocated.contains(offset);
  }

  /** Frees the block that starts at {@code offset}. */
  public void free(long offset) {
    long length = allocated.remove(offset);
    if (length < 0) {
      throw new IllegalArgumentException("no allocated block starts at offset " + offset);
    }
    used -= length;
    Block merged = new Block(offset, length);
    Map.Entry<Long, Block> before = freeByOffset.lowerEntry(offset);
    if (before != null && before.getValue().end() == offset) {
      removeFree(before.getValue());
      merged = new Block(before.getValue().offset(), before.getValue().length() + merged.length());
    }
    Block after = freeByOffset.get(offset + length);
    if (after != null) {
      removeFree(after);
      merged = new Block(merged.offset(), merged.length() + after.length());
    }
    addFree(merged);
  }

  private void addFree(Block b) {
    freeByOffset.put(b.offset(), b);
    freeBySize.add(b);
  }

  private void removeFree(Block b) {
    freeByOffset.remove(b.offset());
    freeBySize.remove(b);
  }

  public long size() {
    return size;
  }

  public long used() {
    return used;
  }

  public long free() {
    return size - used;
  }

  public long largestFreeBlock() {
    return freeBySize.isEmpty() ? 0 : freeBySize.last().length();
  }

  /** Sizes of the largest free blocks, largest first, at most {@code limit} of them. */
  public long[] largestFreeBlocks(int limit) {
    long[] out = new long[Math.min(limit, freeBySize.size())];
    int i = 0;
    for (Block b : freeBySize.descendingSet()) {
      if (i == out.length) {
        break;
      }
      out[i++] = b.length();
    }
    return out;
  }

  public int freeBlockCount() {
    return freeByOffset.size();
  }
}
