package io.kvpool.it;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/** Test values: deterministic random bytes in direct buffers, and their checksums. */
public final class Values {

  private Values() {}

  /**
   * Fills {@code size} random bytes of {@code buffer} from its start; returns it flipped (0..size).
   */
  public static ByteBuffer fill(ByteBuffer buffer, int size, SplittableRandom random) {
    buffer.clear().limit(size);
    while (buffer.remaining() >= 8) {
      buffer.putLong(random.nextLong());
    }
    while (buffer.hasRemaining()) {
      buffer.put((byte) random.nextInt());
    }
    return buffer.flip();
  }

  public static ByteBuffer random(int size, SplittableRandom random) {
    return fill(ByteBuffer.allocateDirect(size), size, random);
  }

  /** CRC32C of position..limit, without moving the position. */
  public static long crc(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return crc.getValue();
  }

  /**
   * Sizes from 1 byte to 4 MiB, skewed to small values like real KV blocks mixed with metadata: 90%
   * log-uniform in 1 B..64 KiB, 10% log-uniform in 64 KiB..4 MiB.
   */
  public static int skewedSize(SplittableRandom random) {
    boolean large = random.nextInt(10) == 0;
    double low = large ? 64 << 10 : 1;
    double high = large ? 4 << 20 : 64 << 10;
    return (int)
        Math.max(1, Math.min(4 << 20, Math.round(low * Math.pow(high / low, random.nextDouble()))));
  }
}
