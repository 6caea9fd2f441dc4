package io.kvpool.nativemem;

/**
 * The plain C baseline for copy benchmarks: {@code memcpy} in a loop, timed inside the library, on
 * the same memory the Java path uses.
 */
public final class MemcpyBaseline {
  private MemcpyBaseline() {}

  /**
   * Copies {@code length} bytes from the start of {@code src} to the start of {@code dst}, {@code
   * iterations} times, and returns the elapsed nanoseconds measured in C.
   */
  public static long timeNanos(NativeSegment dst, NativeSegment src, long length, long iterations) {
    Ranges.check(0, length, dst.size(), "destination segment");
    Ranges.check(0, length, src.size(), "source segment");
    if (iterations <= 0) {
      throw new IllegalArgumentException("iterations must be > 0 but was " + iterations);
    }
    return NativeSegment.whileOpen(
        dst,
        src,
        () -> KvpoolNative.kvpool_bench_memcpy(dst.address(), src.address(), length, iterations));
  }
}
