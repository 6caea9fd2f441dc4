package io.kvpool.master;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.GrantSigner;
import io.kvpool.protocol.Location;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Slice;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/** The master's record of one registered storage node. Guarded by the metadata lock. */
public final class StorageNodeRecord {
  private static final AtomicLong INCARNATIONS = new AtomicLong();

  private final String id;
  /** Distinguishes registrations of the same node id: a restarted node has fresh, empty segments. */
  private final long incarnation = INCARNATIONS.incrementAndGet();
  private final String endpoint;
  private final VersionInfo version;
  private final List<StorageSegment> segments;
  private final GrantSigner signer;
  private final List<Location> released = new ArrayList<>();
  private NodeState state = NodeState.ALIVE;
  private long lastHeartbeatMillis;

  StorageNodeRecord(String id, String endpoint, VersionInfo version, List<StorageSegment> segments, GrantSigner signer,
                    long nowMillis) {
    this.id = id;
    this.endpoint = endpoint;
    this.version = version;
    this.segments = List.copyOf(segments);
    this.signer = signer;
    this.lastHeartbeatMillis = nowMillis;
  }

  public String id() {
    return id;
  }

  long incarnation() {
    return incarnation;
  }

  public String endpoint() {
    return endpoint;
  }

  public VersionInfo version() {
    return version;
  }

  public NodeState state() {
    return state;
  }

  void state(NodeState s) {
    state = s;
  }

  public long lastHeartbeatMillis() {
    return lastHeartbeatMillis;
  }

  void heartbeat(long nowMillis) {
    lastHeartbeatMillis = nowMillis;
  }

  List<StorageSegment> segments() {
    return segments;
  }

  StorageSegment segment(int segmentId) {
    for (StorageSegment s : segments) {
      if (s.id() == segmentId) {
        return s;
      }
    }
    return null;
  }

  GrantSigner signer() {
    return signer;
  }

  /** Records a freed replica so the node can forget it; delivered with the next heartbeat reply. */
  void released(Location l) {
    if (released.size() < 1_000_000) {
      released.add(l);
    }
  }

  List<Location> takeReleased(int max) {
    int n = Math.min(max, released.size());
    List<Location> out = new ArrayList<>(released.subList(0, n));
    released.subList(0, n).clear();
    return out;
  }

  public long capacityBytes() {
    long c = 0;
    for (StorageSegment s : segments) {
      c += s.allocator().size();
    }
    return c;
  }

  public long usedBytes() {
    long u = 0;
    for (StorageSegment s : segments) {
      u += s.allocator().used();
    }
    return u;
  }

  double freeRatio() {
    long c = capacityBytes();
    return c == 0 ? 0 : (double) (c - usedBytes()) / c;
  }

  /** The segment with the most free space that has a block of {@code length}; null if none. */
  private StorageSegment segmentFor(long length) {
    long need = SegmentAllocator.blockSize(length);
    StorageSegment best = null;
    for (StorageSegment s : segments) {
      if (s.allocator().largestFreeBlock() >= need
          && (best == null || s.allocator().free() > best.allocator().free())) {
        best = s;
      }
    }
    return best;
  }

  /** Whether {@link #allocate} would succeed: one block fits, or the largest blocks together hold the value. */
  boolean canHold(int size) {
    if (segmentFor(size) != null) {
      return true;
    }
    long[] blocks = new long[0];
    for (StorageSegment s : segments) {
      long[] more = s.allocator().largestFreeBlocks(ProtocolLimits.MAX_SLICES);
      long[] merged = Arrays.copyOf(blocks, blocks.length + more.length);
      System.arraycopy(more, 0, merged, blocks.length, more.length);
      blocks = merged;
    }
    Arrays.sort(blocks);
    long covered = 0;
    for (int i = blocks.length - 1, n = 0; i >= 0 && n < ProtocolLimits.MAX_SLICES; i--, n++) {
      covered += blocks[i];
      if (covered >= size) {
        return true;
      }
    }
    return false;
  }

  /**
   * Allocates a replica of {@code size} bytes: one block when one fits, else slices from the largest free blocks
   * (at most {@link ProtocolLimits#MAX_SLICES}). Null, with nothing allocated, when the node cannot hold it.
   */
  List<Slice> allocate(int size) {
    StorageSegment single = segmentFor(size);
    if (single != null) {
      return List.of(new Slice(single.id(), single.allocator().allocate(size), size, 0));
    }
    List<Slice> slices = new ArrayList<>();
    int valueOffset = 0;
    while (valueOffset < size && slices.size() < ProtocolLimits.MAX_SLICES) {
      StorageSegment largest = null;
      for (StorageSegment s : segments) {
        if (largest == null || s.allocator().largestFreeBlock() > largest.allocator().largestFreeBlock()) {
          largest = s;
        }
      }
      long block = largest == null ? 0 : largest.allocator().largestFreeBlock();
      if (block == 0) {
        break;
      }
      int length = (int) Math.min(block, size - valueOffset);
      slices.add(new Slice(largest.id(), largest.allocator().allocate(length), length, valueOffset));
      valueOffset += length;
    }
    if (valueOffset < size) {
      for (Slice s : slices) {
        segment(s.segmentId()).allocator().free(s.offset());
      }
      return null;
    }
    return slices;
  }
}
