package io.kvpool.nativemem;

/**
 * Huge page backing of a segment, both as requested and as obtained. A request falls back {@code
 * EXPLICIT -> TRANSPARENT -> NONE} when the machine cannot provide it. The ordinals match {@code
 * enum kvpool_huge_mode} in {@code kvpool_segment.h}.
 */
public enum HugePageMode {
  /** Ordinary pages. */
  NONE,
  /** Transparent huge pages, asked for with {@code madvise(MADV_HUGEPAGE)}. */
  TRANSPARENT,
  /** Huge pages reserved by the administrator ({@code MAP_HUGETLB}, {@code vm.nr_hugepages}). */
  EXPLICIT;

  static HugePageMode ofNative(int code) {
    HugePageMode[] modes = values();
    if (code < 0 || code >= modes.length) {
      throw new NativeMemoryException("libkvpool reported unknown huge page mode " + code);
    }
    return modes[code];
  }
}
