package io.kvpool.storage.disk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * One value in a tier file, self-describing so that the tier can be rescanned after a restart:
 *
 * <pre>
 * offset size field
 * 0      4    magic 0x4B564431 ("KVD1")
 * 4      2    key length (1..4096)
 * 6      1    wanted replicas
 * 7      1    reserved, 0
 * 8      8    generation
 * 16     4    value size (1..1 GiB)
 * 20     4    CRC32C of the value
 * 24     4    CRC32C of bytes 0..24 and the key (the header's own check)
 * 28     n    key, UTF-8
 * 28+n   size value
 * </pre>
 *
 * Big-endian like the wire protocol. A header whose check fails ends a file's scan (a torn or
 * foreign tail); a value whose CRC32C fails makes that record a miss.
 */
record DiskRecord(String key, long generation, int wantedReplicas, int size, int checksum) {
  static final int MAGIC = 0x4B564431;
  static final int FIXED = 28;
  static final int MAX_KEY = 4096;
  static final int MAX_VALUE = 1 << 30;

  /** Bytes of the header including the key. */
  int headerBytes() {
    return FIXED + key.getBytes(StandardCharsets.UTF_8).length;
  }

  long totalBytes() {
    return headerBytes() + (long) size;
  }

  ByteBuffer header() {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(FIXED + k.length).order(ByteOrder.BIG_ENDIAN);
    b.putInt(MAGIC)
        .putShort((short) k.length)
        .put((byte) wantedReplicas)
        .put((byte) 0)
        .putLong(generation)
        .putInt(size)
        .putInt(checksum);
    CRC32C crc = new CRC32C();
    crc.update(b.array(), 0, 24);
    crc.update(k);
    b.putInt((int) crc.getValue()).put(k);
    return b.flip();
  }

  /**
   * The key length a fixed header announces, or -1 when it is not a record header (magic, lengths).
   */
  static int keyLength(ByteBuffer fixed) {
    if (fixed.getInt(0) != MAGIC || fixed.get(7) != 0) {
      return -1;
    }
    int keyLength = Short.toUnsignedInt(fixed.getShort(4));
    int size = fixed.getInt(16);
    return keyLength < 1 || keyLength > MAX_KEY || size < 1 || size > MAX_VALUE ? -1 : keyLength;
  }

  /** Parses a whole header ({@link #FIXED} bytes then the key); null when its check fails. */
  static DiskRecord parse(ByteBuffer header) {
    int keyLength = keyLength(header);
    if (keyLength < 0 || header.limit() < FIXED + keyLength) {
      return null;
    }
    byte[] all = new byte[FIXED + keyLength];
    header.get(0, all);
    CRC32C crc = new CRC32C();
    crc.update(all, 0, 24);
    crc.update(all, FIXED, keyLength);
    if ((int) crc.getValue() != header.getInt(24)) {
      return null;
    }
    return new DiskRecord(
        new String(all, FIXED, keyLength, StandardCharsets.UTF_8),
        header.getLong(8),
        Byte.toUnsignedInt(header.get(6)),
        header.getInt(16),
        header.getInt(20));
  }
}
