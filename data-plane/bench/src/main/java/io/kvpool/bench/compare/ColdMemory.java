package io.kvpool.bench.compare;

import java.nio.ByteBuffer;

/**
 * Two regions as large as the working set, for the machine's limits: what a raw stream sends from
 * (or receives into) and what memcpy copies between, so that neither runs from the CPU caches.
 * Allocated (and paged in) once.
 */
final class ColdMemory {
  private static ByteBuffer first;
  private static ByteBuffer second;

  private ColdMemory() {}

  static synchronized ByteBuffer first(long bytes) {
    if (first == null || first.capacity() < bytes) {
      first = touch(ByteBuffer.allocateDirect((int) bytes));
    }
    return first;
  }

  static synchronized ByteBuffer second(long bytes) {
    if (second == null || second.capacity() < bytes) {
      second = touch(ByteBuffer.allocateDirect((int) bytes));
    }
    return second;
  }

  /** The share of client {@code c} of {@code clients}, aligned down to {@code unit}. */
  static ByteBuffer share(ByteBuffer region, int c, int clients, int unit) {
    long per = region.capacity() / clients / unit * unit;
    return region.duplicate().limit((int) ((c + 1) * per)).position((int) (c * per)).slice();
  }

  private static ByteBuffer touch(ByteBuffer b) {
    for (int i = 0; i < b.capacity(); i += 4096) {
      b.put(i, (byte) i);
    }
    return b;
  }
}
