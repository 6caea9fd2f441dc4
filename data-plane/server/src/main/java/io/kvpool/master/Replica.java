package io.kvpool.master;

import io.kvpool.protocol.Slice;
import java.util.List;

/**
 * One copy of an object on one node: usually a single slice, several when no free block was large
 * enough. It lives in the allocator of one registration of that node ({@code incarnation}): a
 * replica of an older registration is valid only if the node's new inventory confirmed it, which
 * moves it to the new incarnation.
 */
public record Replica(String nodeId, long incarnation, List<Slice> slices) {
  public Replica {
    slices = List.copyOf(slices);
  }

  /** A replica in the disk tier of its node: no memory slices (protocol 2.3). */
  static Replica onDisk(String nodeId, long incarnation) {
    return new Replica(nodeId, incarnation, List.of());
  }

  /** Whether this replica is a record of its node's disk tier rather than a range of its memory. */
  boolean onDisk() {
    return slices.isEmpty();
  }

  Replica in(long newIncarnation) {
    return new Replica(nodeId, newIncarnation, slices);
  }

  long allocatedBytes() {
    long b = 0;
    for (Slice s : slices) {
      b += SegmentAllocator.blockSize(s.length());
    }
    return b;
  }
}
