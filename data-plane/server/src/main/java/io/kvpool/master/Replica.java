package io.kvpool.master;

import io.kvpool.protocol.Slice;
import java.util.List;
import java.util.Objects;

/**
 * One copy of an object on one node: usually a single slice, several when no free block was large
 * enough. It lives in the allocator of one registration of that node ({@code incarnation}): a
 * replica of an older registration is valid only if the node's new inventory confirmed it, which
 * moves it to the new incarnation.
 *
 * <p>A master holds one per replica of every object, so the common shape — one slice holding the
 * whole value — is one flat object of 40 bytes ({@link Whole}) rather than a record, a list and a
 * slice (88 bytes). Two replicas are equal when their node, incarnation and slices are.
 */
public abstract sealed class Replica permits Replica.Whole, Replica.Split {
  private final String nodeId;
  private final long incarnation;

  private Replica(String nodeId, long incarnation) {
    this.nodeId = nodeId;
    this.incarnation = incarnation;
  }

  /** The replica of {@code slices} on {@code nodeId}'s registration {@code incarnation}. */
  static Replica of(String nodeId, long incarnation, List<Slice> slices) {
    if (slices.size() == 1 && slices.get(0).valueOffset() == 0) {
      Slice s = slices.get(0);
      return new Whole(nodeId, incarnation, s.segmentId(), s.offset(), s.length());
    }
    return new Split(nodeId, incarnation, List.copyOf(slices));
  }

  /** A replica in the disk tier of its node: no memory slices (protocol 2.3). */
  static Replica onDisk(String nodeId, long incarnation) {
    return new Split(nodeId, incarnation, List.of());
  }

  public String nodeId() {
    return nodeId;
  }

  public long incarnation() {
    return incarnation;
  }

  /** Its ranges in value order (a new list for a one-slice replica). */
  public abstract List<Slice> slices();

  /** Whether this replica is a record of its node's disk tier rather than a range of its memory. */
  abstract boolean onDisk();

  abstract long allocatedBytes();

  /** Equal node and incarnation (the subclasses compare the ranges). */
  boolean sameHolder(Replica other) {
    return incarnation == other.incarnation && Objects.equals(nodeId, other.nodeId);
  }

  @Override
  public String toString() {
    return "Replica[nodeId="
        + nodeId
        + ", incarnation="
        + incarnation
        + ", slices="
        + slices()
        + "]";
  }

  /** One slice holding the whole value (value offset 0). */
  static final class Whole extends Replica {
    private final long offset;
    private final int segmentId;
    private final int length;

    private Whole(String nodeId, long incarnation, int segmentId, long offset, int length) {
      super(nodeId, incarnation);
      this.segmentId = segmentId;
      this.offset = offset;
      this.length = length;
    }

    @Override
    public List<Slice> slices() {
      return List.of(new Slice(segmentId, offset, length, 0));
    }

    @Override
    boolean onDisk() {
      return false;
    }

    @Override
    long allocatedBytes() {
      return SegmentAllocator.blockSize(length);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Whole w
          && sameHolder(w)
          && offset == w.offset
          && segmentId == w.segmentId
          && length == w.length;
    }

    @Override
    public int hashCode() {
      return Objects.hash(nodeId(), incarnation(), segmentId, offset, length);
    }
  }

  /** Several slices (a value no free block was large enough for), or none: on disk. */
  static final class Split extends Replica {
    private final List<Slice> slices;

    private Split(String nodeId, long incarnation, List<Slice> slices) {
      super(nodeId, incarnation);
      this.slices = slices;
    }

    @Override
    public List<Slice> slices() {
      return slices;
    }

    @Override
    boolean onDisk() {
      return slices.isEmpty();
    }

    @Override
    long allocatedBytes() {
      long b = 0;
      for (Slice s : slices) {
        b += SegmentAllocator.blockSize(s.length());
      }
      return b;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Split s && sameHolder(s) && slices.equals(s.slices);
    }

    @Override
    public int hashCode() {
      return Objects.hash(nodeId(), incarnation(), slices);
    }
  }
}
