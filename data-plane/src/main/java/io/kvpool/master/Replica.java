package io.kvpool.master;

import io.kvpool.protocol.Slice;
import java.util.List;

/** One copy of an object on one node: usually a single slice, several when no free block was large enough. */
public record Replica(String nodeId, List<Slice> slices) {
  public Replica {
    slices = List.copyOf(slices);
  }

  long allocatedBytes() {
    long b = 0;
    for (Slice s : slices) {
      b += SegmentAllocator.blockSize(s.length());
    }
    return b;
  }
}
