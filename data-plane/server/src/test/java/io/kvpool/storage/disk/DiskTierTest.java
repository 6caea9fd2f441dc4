package io.kvpool.storage.disk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The disk tier on real files: records, rescans, the cap and its faults. */
class DiskTierTest {
  private static final long FILE = 16 << 10;

  private Path dir;
  private final List<DiskTier.ObjectRef> dropped = new ArrayList<>();
  private final List<DiskTier> open = new ArrayList<>();

  @BeforeEach
  void folder() throws IOException {
    dir = Files.createTempDirectory("kvpool-tier-");
  }

  @AfterEach
  void clean() throws IOException {
    open.forEach(DiskTier::close);
    if (Files.exists(dir)) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private DiskTier tier(int files) {
    DiskTier t =
        DiskTier.open(
            new DiskTier.Settings(dir, DiskTier.RESERVE_BYTES + files * FILE, FILE, 0.9, 0.8),
            dropped::addAll,
            1 << 20);
    open.add(t);
    return t;
  }

  private static ByteBuffer value(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return ByteBuffer.allocateDirect(size).put(b).flip();
  }

  private static int crc(ByteBuffer v) {
    CRC32C c = new CRC32C();
    c.update(v.duplicate());
    return (int) c.getValue();
  }

  private static boolean append(DiskTier t, String key, ByteBuffer v) {
    return t.append(key, 1, 2, v.remaining(), crc(v), v.duplicate());
  }

  private static ByteBuffer read(DiskTier t, String key) throws IOException {
    try (DiskTier.Staged s = t.read(new DiskTier.ObjectRef(key, 1))) {
      if (s == null) {
        return null;
      }
      return ByteBuffer.allocate(s.value().remaining()).put(s.value()).flip();
    }
  }

  @Test
  void recordsReadBackAndSurviveAReopen() throws IOException {
    DiskTier t = tier(10);
    List<ByteBuffer> values = List.of(value(5000, 1), value(1, 2), value(9000, 3));
    for (int i = 0; i < values.size(); i++) {
      assertThat(append(t, "k" + i, values.get(i))).isTrue();
    }
    for (int i = 0; i < values.size(); i++) {
      assertThat(read(t, "k" + i)).isEqualTo(values.get(i));
    }
    t.close();
    DiskTier again = tier(10);
    assertThat(again.records()).isEqualTo(3);
    assertThat(again.snapshot()).extracting(DiskTier.Held::wantedReplicas).containsOnly(2);
    for (int i = 0; i < values.size(); i++) {
      assertThat(read(again, "k" + i)).isEqualTo(values.get(i));
    }
    assertThat(again.status().droppedAtStart()).isZero();
  }

  @Test
  void aRescanCutsATornTailAndDropsARecordWhoseValueChanged() throws IOException {
    DiskTier t = tier(10);
    append(t, "a", value(3000, 1));
    append(t, "b", value(3000, 2));
    ByteBuffer c = value(3000, 3);
    append(t, "c", c);
    t.close();
    Path file;
    try (Stream<Path> s = Files.list(dir)) {
      file = s.filter(p -> p.toString().endsWith(".kvd")).findFirst().orElseThrow();
    }
    long good = Files.size(file);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      long inB = 28 + 1 + 3000 + 28 + 1 + 10; // a byte of b's value
      ch.read(one, inB);
      ch.write(one.put(0, (byte) (one.get(0) ^ 1)).rewind(), inB);
      ch.write(ByteBuffer.wrap(new byte[] {0x4B, 0x56, 0x44, 0x31, 0, 1}), good); // half a header
    }
    DiskTier again = tier(10);
    assertThat(Files.size(file)).isEqualTo(good);
    assertThat(again.status().droppedAtStart()).isEqualTo(1);
    assertThat(read(again, "b")).isNull();
    assertThat(read(again, "c")).isEqualTo(c);
    assertThat(again.records()).isEqualTo(2);
  }

  @Test
  void aRecordCorruptedWhileRunningIsAMissAndReported() throws IOException {
    DiskTier t = tier(10);
    append(t, "a", value(3000, 1));
    Path file;
    try (Stream<Path> s = Files.list(dir)) {
      file = s.filter(p -> p.toString().endsWith(".kvd")).findFirst().orElseThrow();
    }
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {7, 7, 7}), 28 + 1 + 100);
    }
    assertThat(read(t, "a")).isNull();
    assertThat(dropped).containsExactly(new DiskTier.ObjectRef("a", 1));
    assertThat(t.status().misses()).isEqualTo(1);
  }

  @Test
  void aFullTierReclaimsItsLeastRecentlyUsedFilesAndReportsTheirRecords() throws IOException {
    DiskTier t = tier(10); // high watermark 9 files, low 8
    for (int i = 0; i < 9; i++) {
      assertThat(append(t, "k" + i, value(10_000, i))).isTrue(); // one record per file
    }
    assertThat(read(t, "k0")).isNotNull(); // k1's file is now the least recently used
    assertThat(append(t, "k9", value(10_000, 9))).isTrue();
    assertThat(dropped).containsExactly(new DiskTier.ObjectRef("k1", 1));
    assertThat(t.records()).isEqualTo(9);
    assertThat(t.status().files()).isEqualTo(9);
    assertThat(t.usedBytes()).isLessThanOrEqualTo(10 * FILE);
    assertThat(append(t, "huge", value((int) FILE, 1))).as("a record larger than a file").isFalse();
  }

  @Test
  void removedRecordsFreeTheirFileOnceItHoldsNoneAndBytesThatChangedAreNotWritten()
      throws IOException {
    DiskTier t = tier(10);
    append(t, "a", value(10_000, 1));
    append(t, "b", value(10_000, 2)); // a new file: the first is full
    t.remove(new DiskTier.ObjectRef("a", 1));
    assertThat(t.status().files()).isEqualTo(1);
    ByteBuffer v = value(100, 3);
    assertThat(t.append("c", 1, 1, 100, crc(v) ^ 1, v)).isFalse();
    assertThat(t.contains(new DiskTier.ObjectRef("c", 1))).isFalse();
  }

  @Test
  void aVanishedFolderDegradesTheTierWithItsReason() throws IOException {
    DiskTier t = tier(10);
    append(t, "a", value(10_000, 1));
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
    assertThat(append(t, "b", value(10_000, 2))).isFalse(); // needs a new file
    assertThat(t.degraded()).isTrue();
    assertThat(t.status().degraded()).contains("vanished");
    assertThat(Files.exists(dir)).as("never re-created: it may be an unmounted volume").isFalse();
    assertThat(append(t, "c", value(100, 3))).as("not retried at once").isFalse();
  }

  @Test
  void aSecondTierOnTheSameFolderIsRefused() {
    tier(10);
    DiskTier second = tier(10);
    assertThat(second.degraded()).isTrue();
    assertThat(second.status().degraded()).contains("another process");
    assertThat(second.append("x", 1, 1, 1, 0, ByteBuffer.allocateDirect(1))).isFalse();
  }
}
