package io.kvpool.bench.chaos;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The value of every key the soak writes is a function of the run's seed, the key and its size, so
 * any read can be checked byte for byte without keeping values in memory: a read back is compared
 * with the bytes regenerated here (and a failed put that landed after all must have exactly these
 * bytes too).
 */
public final class KeyValues {
  private final long seed;

  public KeyValues(long seed) {
    this.seed = seed;
  }

  /**
   * A new direct buffer with the value of {@code key} ({@code size} bytes, position 0, limit size).
   */
  public ByteBuffer value(String key, int size) {
    SplittableRandom random = new SplittableRandom(seed ^ hash(key) ^ (size * 0x9E3779B97F4A7C15L));
    ByteBuffer value = ByteBuffer.allocateDirect(size);
    while (value.remaining() >= 8) {
      value.putLong(random.nextLong());
    }
    while (value.hasRemaining()) {
      value.put((byte) random.nextInt());
    }
    return value.flip();
  }

  /** Whether {@code read} holds exactly the value of {@code key} of {@code size} bytes. */
  public boolean matches(String key, int size, ByteBuffer read) {
    return read.remaining() == size && value(key, size).equals(read.duplicate());
  }

  public static int crc(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return (int) crc.getValue();
  }

  /** 64-bit FNV-1a of the key's UTF-8 bytes, mixed: distinct keys get unrelated values. */
  static long hash(String key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      h = (h ^ (b & 0xff)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    return h ^ (h >>> 33);
  }
}
