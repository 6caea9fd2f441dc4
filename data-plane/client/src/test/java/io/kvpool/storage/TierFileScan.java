package io.kvpool.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What a disk tier's files hold, read apart from the tier's own code, from the record format
 * documented in data-plane/README.md ("Disk tier") and {@code DiskRecord}: magic, key length,
 * wanted replicas, a zero byte, generation, value size, the value's CRC32C, the header's CRC32C,
 * key, value. A file's scan ends at its first header that fails its check or runs past the file's
 * end (a torn tail); a whole record whose value fails its CRC32C is corrupt (reserved, never fully
 * written). Read-only: the files are left as they are.
 *
 * @param intact the records whose value checks, by key (the last of a key's records)
 * @param corrupt whole records whose value fails its check
 * @param tornTails files that end inside a record
 */
record TierFileScan(Map<String, Record> intact, int corrupt, int tornTails) {
  private static final int MAGIC = 0x4B564431;
  private static final int FIXED = 28;

  /** A record that checks: its object and its value's size and CRC32C. */
  record Record(String key, long generation, int size, int checksum) {}

  static TierFileScan of(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.filter(p -> p.getFileName().toString().endsWith(".kvd")).sorted().toList();
    }
    Map<String, Record> intact = new HashMap<>();
    int corrupt = 0;
    int torn = 0;
    for (Path file : files) {
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
        long size = ch.size();
        long pos = 0;
        while (pos < size) {
          Record r = header(ch, pos, size);
          long keyBytes = r == null ? 0 : r.key().getBytes(StandardCharsets.UTF_8).length;
          if (r == null || pos + FIXED + keyBytes + r.size() > size) {
            torn++;
            break;
          }
          if (valueChecksum(ch, pos + FIXED + keyBytes, r.size()) == r.checksum()) {
            intact.put(r.key(), r);
          } else {
            corrupt++;
          }
          pos += FIXED + keyBytes + r.size();
        }
      }
    }
    return new TierFileScan(Map.copyOf(intact), corrupt, torn);
  }

  /** The record whose header starts at {@code pos}, or null when that is no whole, checked one. */
  private static Record header(FileChannel ch, long pos, long fileSize) throws IOException {
    if (fileSize - pos < FIXED) {
      return null;
    }
    ByteBuffer fixed = read(ch, pos, FIXED);
    int keyLength = Short.toUnsignedInt(fixed.getShort(4));
    int valueSize = fixed.getInt(16);
    if (fixed.getInt(0) != MAGIC
        || fixed.get(7) != 0
        || keyLength < 1
        || keyLength > 4096
        || valueSize < 1
        || fileSize - pos < FIXED + keyLength) {
      return null;
    }
    byte[] key = new byte[keyLength];
    read(ch, pos + FIXED, keyLength).get(key);
    CRC32C crc = new CRC32C();
    crc.update(fixed.array(), 0, 24);
    crc.update(key);
    if ((int) crc.getValue() != fixed.getInt(24)) {
      return null;
    }
    return new Record(
        new String(key, StandardCharsets.UTF_8), fixed.getLong(8), valueSize, fixed.getInt(20));
  }

  private static int valueChecksum(FileChannel ch, long pos, int size) throws IOException {
    CRC32C crc = new CRC32C();
    crc.update(read(ch, pos, size));
    return (int) crc.getValue();
  }

  private static ByteBuffer read(FileChannel ch, long pos, int length) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(length);
    while (b.hasRemaining()) {
      if (ch.read(b, pos + b.position()) < 0) {
        break; // the rest stays zero: a short file fails the checks that follow
      }
    }
    return b.flip().limit(length);
  }
}
