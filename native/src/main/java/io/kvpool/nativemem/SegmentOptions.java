package io.kvpool.nativemem;

import java.util.Objects;

/**
 * How to allocate a {@link NativeSegment}: huge pages, preferred NUMA node and mlock. Immutable;
 * every setter returns a new instance.
 */
public final class SegmentOptions {
  private static final SegmentOptions DEFAULTS =
      new SegmentOptions(HugePageMode.TRANSPARENT, -1, false);

  private final HugePageMode hugePages;
  private final int numaNode;
  private final boolean lock;

  private SegmentOptions(HugePageMode hugePages, int numaNode, boolean lock) {
    this.hugePages = hugePages;
    this.numaNode = numaNode;
    this.lock = lock;
  }

  /** Transparent huge pages requested, no NUMA preference, no mlock. */
  public static SegmentOptions defaults() {
    return DEFAULTS;
  }

  /** Requested huge page mode; the segment reports what it obtained. */
  public SegmentOptions hugePages(HugePageMode mode) {
    return new SegmentOptions(Objects.requireNonNull(mode, "huge page mode"), numaNode, lock);
  }

  /** Preferred NUMA node, or -1 for none. Binding failures are reported, not fatal. */
  public SegmentOptions numaNode(int node) {
    if (node < -1) {
      throw new IllegalArgumentException(
          "NUMA node must be >= 0, or -1 for no preference, but was " + node);
    }
    return new SegmentOptions(hugePages, node, lock);
  }

  /** Whether to mlock the segment. Lock failures (e.g. RLIMIT_MEMLOCK) are reported, not fatal. */
  public SegmentOptions lock(boolean mlock) {
    return new SegmentOptions(hugePages, numaNode, mlock);
  }

  public HugePageMode hugePages() {
    return hugePages;
  }

  public int numaNode() {
    return numaNode;
  }

  public boolean lock() {
    return lock;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof SegmentOptions that
        && hugePages == that.hugePages
        && numaNode == that.numaNode
        && lock == that.lock;
  }

  @Override
  public int hashCode() {
    return Objects.hash(hugePages, numaNode, lock);
  }

  @Override
  public String toString() {
    return "SegmentOptions{hugePages="
        + hugePages
        + ", numaNode="
        + numaNode
        + ", lock="
        + lock
        + '}';
  }
}
