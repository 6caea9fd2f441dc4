package io.kvpool.nativemem;

import com.sun.jna.Native;

/**
 * JNA direct mapping of libkvpool (loaded from {@code linux-x86-64/libkvpool.so} on the class
 * path). Direct mapping keeps the per-call cost low on the copy and checksum paths. Addresses and
 * {@code size_t} values travel as {@code long}: the library is built for LP64 Linux only. Arguments
 * are checked by the callers in this package; nothing here validates.
 */
final class KvpoolNative {
  static final int ERROR_BUFFER_BYTES = 1024;

  static {
    try {
      Native.register(KvpoolNative.class, "kvpool");
    } catch (UnsatisfiedLinkError e) {
      throw new NativeMemoryException(
          "cannot load libkvpool: the kvpool-native jar ships "
              + "linux-x86-64/libkvpool.so and this JVM runs on "
              + System.getProperty("os.name")
              + "/"
              + System.getProperty("os.arch")
              + "; build the library there with 'make -C native lib' or run "
              + "on linux x86-64 ("
              + e.getMessage()
              + ")");
    }
  }

  private KvpoolNative() {}

  /**
   * out: the four 64-bit words of {@code struct kvpool_segment}: base, size, then huge mode (low 32
   * bits) with flags (high 32 bits), then lock errno (low) with NUMA errno (high). Read through
   * {@link SegmentReport}.
   */
  static native int kvpool_segment_create(
      long size, int hugeMode, int numaNode, int lock, long[] out);

  /** As {@link #kvpool_segment_create}, over the file at {@code path} (see kvpool_segment.h). */
  static native int kvpool_segment_map_file(
      String path, long size, int hugeMode, int numaNode, int lock, long[] out);

  static native int kvpool_segment_destroy(long base, long size);

  static native int kvpool_segment_replace_pages(long base, long size, long offset, long length);

  static native long kvpool_page_size();

  static native long kvpool_huge_page_size();

  static native void kvpool_copy(long dst, long src, long len);

  /** entries: {dst, src, len} triples, the layout of {@code kvpool_copy_entry}. */
  static native void kvpool_copy_batch(long[] entries, long count);

  static native long kvpool_bench_memcpy(long dst, long src, long len, long iterations);

  static native int kvpool_crc32c(int crc, long buf, long len);

  static native int kvpool_crc32c_portable(int crc, long buf, long len);

  static native int kvpool_crc32c_hw(int crc, long buf, long len);

  static native int kvpool_crc32c_hw_available();

  static native int kvpool_device_open(
      String name, String library, long[] out, byte[] err, long errLen);

  static native int kvpool_device_alloc(long dev, long size, long[] out, byte[] err, long errLen);

  static native int kvpool_device_free(long dev, long ptr, byte[] err, long errLen);

  static native int kvpool_device_copy_to_device(
      long dev, long dst, long src, long len, byte[] err, long errLen);

  static native int kvpool_device_copy_to_host(
      long dev, long dst, long src, long len, byte[] err, long errLen);

  static native void kvpool_device_close(long dev);
}
