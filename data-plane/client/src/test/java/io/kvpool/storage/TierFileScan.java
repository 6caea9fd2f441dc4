package io.kvpool.storage;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.ProtocolException;
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
 * written). Side files ({@code tier-N.kvm}, the block metadata of records) are read by their
 * documented format too: magic "KVM1", body length, body (record offset, generation, value CRC32C,
 * key, block metadata as in a protocol body), CRC32C of the entry; a side file's scan ends at its
 * first entry that fails a check. Read-only: the files are left as they are.
 *
 * @param intact the records whose value checks, by key (the last of a key's records)
 * @param corrupt whole records whose value fails its check
 * @param tornTails files that end inside a record
 * @param metadata the block metadata the side files give intact records (an entry naming the
 *     record's file, offset, key, generation and checksum), by key
 */
record TierFileScan(
    Map<String, Record> intact, int corrupt, int tornTails, Map<String, BlockMetadata> metadata) {
  private static final int MAGIC = 0x4B564431;
  private static final int FIXED = 28;
  private static final int ENTRY_MAGIC = 0x4B564D31;

  /** A record that checks: where it is, its object and its value's size and CRC32C. */
  record Record(String key, long generation, int size, int checksum, Path file, long offset) {}

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
            intact.put(
                r.key(), new Record(r.key(), r.generation(), r.size(), r.checksum(), file, pos));
          } else {
            corrupt++;
          }
          pos += FIXED + keyBytes + r.size();
        }
      }
    }
    Map<String, BlockMetadata> metadata = new HashMap<>();
    for (Path file : files) {
      String name = file.getFileName().toString();
      Path side = file.resolveSibling(name.substring(0, name.length() - 4) + ".kvm");
      if (Files.exists(side)) {
        sideFile(side, file, intact, metadata);
      }
    }
    return new TierFileScan(Map.copyOf(intact), corrupt, torn, Map.copyOf(metadata));
  }

  private static void sideFile(
      Path side, Path file, Map<String, Record> intact, Map<String, BlockMetadata> out)
      throws IOException {
    try (FileChannel ch = FileChannel.open(side, StandardOpenOption.READ)) {
      long size = ch.size();
      long pos = 0;
      while (size - pos >= 12) {
        ByteBuffer frame = read(ch, pos, 8);
        int n = frame.getInt(4);
        if (frame.getInt(0) != ENTRY_MAGIC || n < 1 || size - pos < 12L + n) {
          return;
        }
        ByteBuffer body = read(ch, pos + 8, n + 4);
        CRC32C crc = new CRC32C();
        crc.update(frame.array(), 0, 8);
        crc.update(body.array(), 0, n);
        if ((int) crc.getValue() != body.getInt(n)) {
          return;
        }
        try {
          BodyReader r = new BodyReader(ByteBuffer.wrap(body.array(), 0, n));
          long offset = r.i64();
          long generation = r.i64();
          int checksum = r.i32();
          String key = r.key();
          BlockMetadata m = BlockMetadata.decode(r);
          r.finish();
          Record rec = intact.get(key);
          if (rec != null
              && rec.file().equals(file)
              && rec.offset() == offset
              && rec.generation() == generation
              && rec.checksum() == checksum) {
            out.put(key, m);
          }
        } catch (ProtocolException e) {
          return;
        }
        pos += 12L + n;
      }
    }
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
        new String(key, StandardCharsets.UTF_8),
        fixed.getLong(8),
        valueSize,
        fixed.getInt(20),
        null,
        pos);
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
