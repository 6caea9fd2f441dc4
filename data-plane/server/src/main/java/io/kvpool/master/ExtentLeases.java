package io.kvpool.master;

import io.kvpool.protocol.Slice;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The extents this leader granted (protocol 2.4, PROTOCOL.md "Extents"): a range of one node's
 * segment and a run of generations leased to one client, into which the client puts small values
 * straight at the node, whose EXTENT_COMMIT registers each one here. The range is carved into the
 * objects put into it; what no object took stays allocated, out of use, until the lease is surely
 * over (expiry plus {@link #CLOSE_MARGIN_MILLIS}, by when the node has stopped every write into it)
 * and is then freed. A returned extent takes no further commit but its space waits the same.
 * Guarded by the metadata lock.
 */
final class ExtentLeases {
  /**
   * How long an extent is granted for. Shorter than the pending timeout (PUT_END of adopted puts).
   */
  static final long TTL_MILLIS = 10_000;

  /**
   * How long after its expiry an extent's unused space stays out of use: a node cuts every write
   * into an extent when it expires (checked each 250 ms), so this covers that and the clocks.
   */
  static final long CLOSE_MARGIN_MILLIS = 5_000;

  /** Generations per extent: at most this many values go into one. */
  static final int GENERATIONS = 4096;

  /**
   * Extents one client (by its handshake's peer id) may hold open (granted, not returned) at once.
   */
  static final int MAX_PER_CLIENT = 8;

  static final class Lease {
    final long first;
    final int generations;
    final String clientId;
    final String nodeId;
    final long incarnation;
    final Slice range;
    final long expiresAtMillis;

    /** Allocated blocks of the range that no object took: offset -> length. */
    final TreeMap<Long, Long> gaps = new TreeMap<>();

    boolean returned;

    Lease(
        long first,
        int generations,
        String clientId,
        String nodeId,
        long incarnation,
        Slice range,
        long expiresAtMillis) {
      this.first = first;
      this.generations = generations;
      this.clientId = clientId;
      this.nodeId = nodeId;
      this.incarnation = incarnation;
      this.range = range;
      this.expiresAtMillis = expiresAtMillis;
      gaps.put(range.offset(), SegmentAllocator.blockSize(range.length()));
    }

    boolean owns(long generation) {
      return generation >= first && generation - first < generations;
    }
  }

  private final Map<Long, Lease> byFirst = new HashMap<>();

  /** In grant order, which is expiry order (one TTL). */
  private final ArrayDeque<Lease> byExpiry = new ArrayDeque<>();

  /** Open, unreturned extents by client. */
  private final Map<String, Integer> perClient = new HashMap<>();

  /** Bytes of extents that no object took yet: out of use until their extent closes. */
  private long heldBytes;

  Lease add(
      long first,
      int generations,
      String clientId,
      StorageNodeRecord node,
      Slice range,
      long expiresAtMillis) {
    Lease l =
        new Lease(
            first, generations, clientId, node.id(), node.incarnation(), range, expiresAtMillis);
    byFirst.put(first, l);
    byExpiry.add(l);
    perClient.merge(clientId, 1, Integer::sum);
    heldBytes += SegmentAllocator.blockSize(range.length());
    return l;
  }

  /** The client gives the lease back: no commit into it counts, and it no longer counts as held. */
  void giveBack(Lease l) {
    if (!l.returned) {
      l.returned = true;
      perClient.computeIfPresent(l.clientId, (k, n) -> n > 1 ? n - 1 : null);
    }
  }

  /** The open lease named {@code first}, or null (never granted, or closed). */
  Lease get(long first) {
    return byFirst.get(first);
  }

  int heldBy(String clientId) {
    return perClient.getOrDefault(clientId, 0);
  }

  long heldBytes() {
    return heldBytes;
  }

  int size() {
    return byFirst.size();
  }

  /**
   * The replica of a value put {@code value.offset()} into the lease's range: its block carved out
   * of a gap of the node's allocator. Null, changing nothing, when the block is not an aligned,
   * untaken part of the range.
   */
  Replica carve(Lease l, StorageNodeRecord node, Slice value) {
    long need = SegmentAllocator.blockSize(value.length());
    long from = value.offset();
    long end = l.range.offset() + SegmentAllocator.blockSize(l.range.length());
    if (value.segmentId() != l.range.segmentId()
        || value.valueOffset() != 0
        || from % SegmentAllocator.ALIGNMENT != 0
        || from < l.range.offset()
        || from + need > end) {
      return null;
    }
    Map.Entry<Long, Long> gap = l.gaps.floorEntry(from);
    if (gap == null || gap.getKey() + gap.getValue() < from + need) {
      return null;
    }
    SegmentAllocator a = node.segment(l.range.segmentId()).allocator();
    long gapStart = gap.getKey();
    long gapEnd = gapStart + gap.getValue();
    l.gaps.remove(gapStart);
    if (gapStart < from) {
      a.split(gapStart, from);
      l.gaps.put(gapStart, from - gapStart);
    }
    if (from + need < gapEnd) {
      a.split(from, from + need);
      l.gaps.put(from + need, gapEnd - from - need);
    }
    heldBytes -= need;
    return Replica.of(node.id(), l.incarnation, List.of(value));
  }

  /**
   * Closes the leases whose space is surely out of every writer's reach: their gaps go back to the
   * node's allocator (if it still is the registration that the lease was carved from: a new one
   * rebuilt its allocator from the node's inventory).
   */
  void closeExpired(long nowMillis, Function<String, StorageNodeRecord> nodes) {
    for (Lease l = byExpiry.peek();
        l != null && nowMillis > l.expiresAtMillis + CLOSE_MARGIN_MILLIS;
        l = byExpiry.peek()) {
      byExpiry.poll();
      byFirst.remove(l.first);
      giveBack(l);
      for (long length : l.gaps.values()) {
        heldBytes -= length;
      }
      StorageNodeRecord node = nodes.apply(l.nodeId);
      if (node != null && node.incarnation() == l.incarnation) {
        SegmentAllocator a = node.segment(l.range.segmentId()).allocator();
        for (long offset : l.gaps.keySet()) {
          if (a.isAllocated(offset)) {
            a.free(offset);
          }
        }
      }
    }
  }
}
