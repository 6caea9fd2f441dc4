package io.kvpool.nativemem;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * CRC32C (Castagnoli) through libkvpool; the values equal {@link java.util.zip.CRC32C}. Direct
 * buffers are read in place; heap buffers are staged through a small per-thread direct buffer. No
 * method moves the buffer's position.
 */
public final class Crc32c {
  private static final int STAGING_BYTES = 64 * 1024;
  private static final ThreadLocal<ByteBuffer> STAGING =
      ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(STAGING_BYTES));

  /** The three native implementations, with the same contract. */
  private interface NativeCrc {
    int update(int crc, long address, long length);
  }

  private Crc32c() {}

  /** CRC32C of position..limit, with the CPU instruction when present. */
  public static int compute(ByteBuffer buf) {
    return update(0, buf);
  }

  /** Continues {@code crc} (a previous result, or 0 to start) over position..limit. */
  public static int update(int crc, ByteBuffer buf) {
    return run(KvpoolNative::kvpool_crc32c, crc, buf);
  }

  /** CRC32C of position..limit with the portable table implementation, whatever the CPU. */
  public static int computePortable(ByteBuffer buf) {
    return run(KvpoolNative::kvpool_crc32c_portable, 0, buf);
  }

  /** Whether this CPU has the SSE4.2 crc32 instruction that {@link #compute} then uses. */
  public static boolean hardwareAvailable() {
    return KvpoolNative.kvpool_crc32c_hw_available() != 0;
  }

  /** The SSE4.2 implementation alone, for tests that compare the two. */
  static int computeHardware(ByteBuffer buf) {
    if (!hardwareAvailable()) {
      throw new UnsupportedOperationException("this CPU has no SSE4.2 crc32 instruction");
    }
    return run(KvpoolNative::kvpool_crc32c_hw, 0, buf);
  }

  private static int run(NativeCrc impl, int crc, ByteBuffer buf) {
    Objects.requireNonNull(buf, "buffer");
    int position = buf.position();
    int length = buf.limit() - position;
    if (buf.isDirect()) {
      long address = Pointer.nativeValue(Native.getDirectBufferPointer(buf));
      return impl.update(crc, address + position, length);
    }
    ByteBuffer staging = STAGING.get();
    long stagingAddress = Pointer.nativeValue(Native.getDirectBufferPointer(staging));
    int result = crc;
    for (int done = 0; done < length; ) {
      int chunk = Math.min(STAGING_BYTES, length - done);
      staging.clear();
      staging.put(0, buf, position + done, chunk);
      result = impl.update(result, stagingAddress, chunk);
      done += chunk;
    }
    return result;
  }
}
