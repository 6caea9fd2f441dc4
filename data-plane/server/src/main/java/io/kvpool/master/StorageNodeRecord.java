package io.kvpool.master;

import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.DiskFigures;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.Slice;
import io.kvpool.security.NodeKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;

/** The master's record of one registration of a storage node. Guarded by the metadata lock. */
public final class StorageNodeRecord {
  private final String id;

  /** Distinguishes registrations of the same node id: each has fresh allocators and a fresh key. */
  private final long incarnation;

  private final byte[] registrationId;
  private final String endpoint;
  private final VersionInfo version;
  private final List<StorageSegment> segments;

  /** The largest value block it could hold when empty: its segments never change size. */
  private final long largestValueBlock;

  private final NodeKey key;

  /**
   * The connection that registered the node, and whether it is still open: a node id is bound to
   * it.
   */
  private final Object connection;

  private final BooleanSupplier connectionOpen;
  private final String transport;
  private final List<String> devices;
  private final ArrayDeque<Release> releases = new ArrayDeque<>();

  /**
   * The size of the node's disk tier (protocol 2.3), 0 without one: its evicted replicas are moved
   * there.
   */
  private long diskBytes;

  /** The disk tier's figures from the node's last heartbeat (protocol 2.4), or null. */
  private DiskFigures diskFigures;

  private NodeState state = NodeState.REGISTERING;
  private long lastHeartbeatMillis;
  private final long registeredAtMillis;
  private long replicas;

  StorageNodeRecord(
      String id,
      long incarnation,
      byte[] registrationId,
      String endpoint,
      VersionInfo version,
      List<StorageSegment> segments,
      NodeKey key,
      Object connection,
      BooleanSupplier connectionOpen,
      String transport,
      List<String> devices,
      long nowMillis) {
    this.id = id;
    this.transport = transport;
    this.devices = List.copyOf(devices);
    this.incarnation = incarnation;
    this.registrationId = registrationId.clone();
    this.endpoint = endpoint;
    this.version = version;
    this.segments = List.copyOf(segments);
    this.largestValueBlock = largestValueBlock(this.segments);
    this.key = key;
    this.connection = connection;
    this.connectionOpen = connectionOpen;
    this.lastHeartbeatMillis = nowMillis;
    this.registeredAtMillis = nowMillis;
  }

  /**
   * When this registration began (master time): how long the node has been taking puts, for
   * placement's ramp.
   */
  long registeredAtMillis() {
    return registeredAtMillis;
  }

  public String id() {
    return id;
  }

  long incarnation() {
    return incarnation;
  }

  boolean registeredAs(byte[] candidate) {
    return Arrays.equals(registrationId, candidate);
  }

  Object connection() {
    return connection;
  }

  boolean connectionOpen() {
    return connectionOpen.getAsBoolean();
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

  NodeKey key() {
    return key;
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

  /** Replicas the master counts on this registration. */
  public long replicaCount() {
    return replicas;
  }

  void replicaAdded() {
    replicas++;
  }

  void replicaRemoved() {
    replicas--;
  }

  /** Queues an object for the node to forget; delivered with the next heartbeat replies. */
  void release(Release r) {
    releases.add(r);
  }

  /** The next releases to deliver, at most {@code max}. */
  List<Release> takeReleases(int max) {
    List<Release> out = new ArrayList<>(Math.min(max, releases.size()));
    while (out.size() < max && !releases.isEmpty()) {
      out.add(releases.poll());
    }
    return out;
  }

  boolean hasReleases() {
    return !releases.isEmpty();
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

  /**
   * Whether the node could hold {@code size} bytes if it were empty (feasibility, before any
   * eviction).
   */
  boolean couldEverHold(int size) {
    return SegmentAllocator.blockSize(size) <= largestValueBlock;
  }

  /** What its {@link ProtocolLimits#MAX_SLICES} largest segments hold together. */
  private static long largestValueBlock(List<StorageSegment> segments) {
    long[] sizes = segments.stream().mapToLong(s -> s.allocator().size()).sorted().toArray();
    long covered = 0;
    for (int i = sizes.length - 1, n = 0; i >= 0 && n < ProtocolLimits.MAX_SLICES; i--, n++) {
      covered += sizes[i];
    }
    return covered;
  }

  /** The largest free block of any of its segments. */
  long largestFreeBlock() {
    long largest = 0;
    for (StorageSegment s : segments) {
      largest = Math.max(largest, s.allocator().largestFreeBlock());
    }
    return largest;
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

  /**
   * Whether {@link #allocate} would succeed: one block fits, or the largest blocks together hold
   * the value.
   */
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
   * Allocates a replica of {@code size} bytes: one block when one fits, else slices from the
   * largest free blocks (at most {@link ProtocolLimits#MAX_SLICES}). Null, with nothing allocated,
   * when the node cannot hold it.
   */
  Replica allocate(int size) {
    StorageSegment single = segmentFor(size);
    if (single != null) {
      return Replica.of(
          id,
          incarnation,
          List.of(new Slice(single.id(), single.allocator().allocate(size), size, 0)));
    }
    List<Slice> slices = new ArrayList<>();
    int valueOffset = 0;
    while (valueOffset < size && slices.size() < ProtocolLimits.MAX_SLICES) {
      StorageSegment largest = null;
      for (StorageSegment s : segments) {
        if (largest == null
            || s.allocator().largestFreeBlock() > largest.allocator().largestFreeBlock()) {
          largest = s;
        }
      }
      long block = largest == null ? 0 : largest.allocator().largestFreeBlock();
      if (block == 0) {
        break;
      }
      int length = (int) Math.min(block, size - valueOffset);
      slices.add(
          new Slice(largest.id(), largest.allocator().allocate(length), length, valueOffset));
      valueOffset += length;
    }
    if (valueOffset < size) {
      for (Slice s : slices) {
        segment(s.segmentId()).allocator().free(s.offset());
      }
      return null;
    }
    return Replica.of(id, incarnation, slices);
  }

  /**
   * One contiguous range of {@code length} bytes for an extent (protocol 2.4), in the segment with
   * the most free space that has a block that large; null when none has.
   */
  Slice allocateExtent(int length) {
    StorageSegment s = segmentFor(length);
    return s == null ? null : new Slice(s.id(), s.allocator().allocate(length), length, 0);
  }

  /**
   * Claims an existing replica's ranges (from the node's inventory) in this registration's
   * allocators; all or none.
   */
  boolean reserve(List<Slice> slices) {
    List<Slice> done = new ArrayList<>();
    for (Slice s : slices) {
      StorageSegment seg = segment(s.segmentId());
      if (seg == null || !seg.allocator().reserve(s.offset(), s.length())) {
        for (Slice d : done) {
          segment(d.segmentId()).allocator().free(d.offset());
        }
        return false;
      }
      done.add(s);
    }
    return true;
  }

  /** Returns a replica's ranges to the allocators (only ranges of this registration). */
  void free(Replica r) {
    if (r.incarnation() != incarnation) {
      return;
    }
    for (Slice s : r.slices()) {
      StorageSegment seg = segment(s.segmentId());
      if (seg != null && seg.allocator().isAllocated(s.offset())) {
        seg.allocator().free(s.offset());
      }
    }
  }

  /** The node's transport protocol (tcp, rdma, ascend) as it registered. */
  long diskBytes() {
    return diskBytes;
  }

  void diskBytes(long bytes) {
    diskBytes = bytes;
  }

  /**
   * The node's disk tier as its heartbeats report it; a node with a tier whose heartbeats carry no
   * figures (protocol 2.3) shows its registered size, nothing used, healthy. Null without a tier.
   */
  DiskFigures diskFigures() {
    if (diskFigures != null) {
      return diskFigures;
    }
    return hasDisk() ? new DiskFigures(diskBytes, 0, "") : null;
  }

  void diskFigures(DiskFigures figures) {
    diskFigures = figures;
  }

  /** Whether memory replicas of this node move to its disk tier when evicted. */
  boolean hasDisk() {
    return diskBytes > 0;
  }

  public String transport() {
    return transport;
  }

  /** The devices the node opened, e.g. {@code ascend:3}. */
  public List<String> devices() {
    return devices;
  }
}
