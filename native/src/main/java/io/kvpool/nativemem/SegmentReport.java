package io.kvpool.nativemem;

/**
 * What {@code kvpool_segment_create} obtained, decoded from the four 64-bit words of {@code struct
 * kvpool_segment} (x86-64 is little endian: the first int of a word is its low half).
 */
record SegmentReport(
    long base, long size, HugePageMode hugePages, int flags, int lockErrno, int numaErrno) {
  static final int WORDS = 4;
  private static final int LOCKED = 0x1;
  private static final int LOCK_FAILED = 0x2;
  private static final int NUMA_BOUND = 0x4;
  private static final int NUMA_FAILED = 0x8;
  private static final int FILE_KEPT = 0x20;

  static SegmentReport decode(long[] words) {
    return new SegmentReport(
        words[0],
        words[1],
        HugePageMode.ofNative((int) words[2]),
        (int) (words[2] >>> 32),
        (int) words[3],
        (int) (words[3] >>> 32));
  }

  boolean locked() {
    return (flags & LOCKED) != 0;
  }

  boolean lockFailed() {
    return (flags & LOCK_FAILED) != 0;
  }

  boolean numaBound() {
    return (flags & NUMA_BOUND) != 0;
  }

  boolean numaFailed() {
    return (flags & NUMA_FAILED) != 0;
  }

  /** A memory file mapped with the bytes an earlier process left in it (else they read as zero). */
  boolean fileKept() {
    return (flags & FILE_KEPT) != 0;
  }
}
