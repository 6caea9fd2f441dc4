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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The disk tier on real files: records, rescans, the cap and its faults. */
class DiskTierTest {
  private static final long FILE = 16 << 10;

  private Path dir;
  private final List<DiskTier.ObjectRef> dropped =
      java.util.Collections.synchronizedList(new ArrayList<>());
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

  private static Path onlyFile(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".kvd")).findFirst().orElseThrow();
    }
  }

  @Test
  void aRecordReservedButNeverWrittenIsDroppedOnRescanAndTheRecordsAfterItAreKept()
      throws IOException {
    DiskTier t = tier(10);
    ByteBuffer a = value(3000, 1);
    ByteBuffer x = value(3000, 2);
    ByteBuffer b = value(3000, 3);
    assertThat(append(t, "a", a)).isTrue();
    DiskTier.Reservation hole = t.reserve(new DiskRecord("x", 1, 2, 3000, crc(x)));
    assertThat(hole).isNotNull();
    // reads and appends go on while x's value is not written
    assertThat(append(t, "b", b)).isTrue();
    assertThat(read(t, "a")).isEqualTo(a);
    assertThat(t.contains(new DiskTier.ObjectRef("x", 1)))
        .as("not indexed before its value is written")
        .isFalse();
    long endOfB = Files.size(onlyFile(dir));
    assertThat(t.reserve(new DiskRecord("y", 1, 2, 3000, crc(value(3000, 4))))).isNotNull();
    t.close(); // as a process killed before writing x's and y's values: their headers are there

    DiskTier again = tier(10);
    assertThat(read(again, "a")).isEqualTo(a);
    assertThat(read(again, "b")).as("after the hole in the middle").isEqualTo(b);
    assertThat(read(again, "x")).as("a hole's value fails its CRC32C").isNull();
    assertThat(read(again, "y")).isNull();
    assertThat(again.records()).isEqualTo(2);
    assertThat(again.status().droppedAtStart()).isEqualTo(1);
    assertThat(Files.size(onlyFile(dir)))
        .as("y's torn tail cut, nothing before it")
        .isEqualTo(endOfB);
    assertThat(append(again, "c", value(3000, 5))).isTrue();
    assertThat(read(again, "b")).isEqualTo(b);
  }

  @Test
  void aFileWithWritesInFlightIsNeverReclaimed() throws IOException {
    DiskTier t = tier(10); // high watermark 9 files, low 8; one record per file
    ByteBuffer v0 = value(10_000, 100);
    DiskTier.Reservation r0 = t.reserve(new DiskRecord("k0", 1, 2, 10_000, crc(v0)));
    for (int i = 1; i < 9; i++) {
      assertThat(append(t, "k" + i, value(10_000, i))).isTrue();
    }
    assertThat(append(t, "k9", value(10_000, 9))).isTrue();
    assertThat(dropped)
        .as("k0's file is the least recently used but is being written")
        .containsExactly(new DiskTier.ObjectRef("k1", 1));
    assertThat(r0.write(v0.duplicate())).isTrue();
    assertThat(read(t, "k0")).isEqualTo(v0);
    assertThat(t.usedBytes()).isLessThanOrEqualTo(10 * FILE);
  }

  @Test
  void aTierWhoseFilesAreAllBeingWrittenRefusesASpillWithoutDegrading() throws IOException {
    DiskTier t = tier(10);
    List<DiskTier.Reservation> inFlight = new ArrayList<>();
    List<ByteBuffer> values = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      ByteBuffer v = value(10_000, i);
      values.add(v);
      inFlight.add(t.reserve(new DiskRecord("k" + i, 1, 2, 10_000, crc(v))));
    }
    assertThat(inFlight).doesNotContainNull();
    assertThat(append(t, "more", value(10_000, 99))).isFalse();
    assertThat(t.degraded()).isFalse();
    assertThat(t.usedBytes()).isLessThanOrEqualTo(10 * FILE);
    for (int i = 0; i < 10; i++) {
      assertThat(inFlight.get(i).write(values.get(i).duplicate())).isTrue();
    }
    assertThat(append(t, "more", value(10_000, 99))).as("room once reclaimable").isTrue();
    assertThat(dropped).hasSize(2); // down to the low watermark, 8 files
  }

  /**
   * A read of a record whose value is being written (outside the tier's lock) waits for the write
   * and gets the value: its memory copy may be gone already (a WRITE displaced it), so a miss would
   * lose it for that reader. Failed when reads did not wait (a put's reader missed a value being
   * spilled in {@code TieredPoolFillTest}).
   */
  @Test
  void aReadOfARecordBeingWrittenWaitsForItsValue() throws Exception {
    DiskTier t = tier(10);
    ByteBuffer v = value(5000, 7);
    DiskTier.Reservation r = t.reserve(new DiskRecord("busy", 1, 2, v.remaining(), crc(v)));
    assertThat(r).isNotNull();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Thread[] reader = new Thread[1];
      Future<ByteBuffer> got =
          pool.submit(
              () -> {
                reader[0] = Thread.currentThread();
                return read(t, "busy");
              });
      long deadline = System.currentTimeMillis() + 30_000;
      while ((reader[0] == null || reader[0].getState() != Thread.State.TIMED_WAITING)
          && !got.isDone()
          && System.currentTimeMillis() < deadline) {
        Thread.sleep(5);
      }
      assertThat(got.isDone()).as("the read waits for the record being written").isFalse();
      assertThat(r.write(v.duplicate())).isTrue();
      assertThat(got.get(30, TimeUnit.SECONDS)).isEqualTo(v);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentSpillsAndReadsServeExactBytesOrMissesAndSurviveAReopen() throws Exception {
    DiskTier t = tier(40);
    int writers = 4;
    int perWriter = 60;
    Set<String> written = ConcurrentHashMap.newKeySet();
    Set<DiskTier.ObjectRef> lost = ConcurrentHashMap.newKeySet();
    ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
    try {
      List<Future<?>> work = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int me = w;
        work.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < perWriter; i++) {
                    String key = "w" + me + "-" + i;
                    if (append(t, key, value(3000 + i, key.hashCode()))) {
                      written.add(key);
                    }
                  }
                  return null;
                }));
      }
      List<Future<Integer>> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        readers.add(
            pool.submit(
                () -> {
                  int hits = 0;
                  while (!work.stream().allMatch(Future::isDone)) {
                    for (String key : List.copyOf(written)) {
                      int i = Integer.parseInt(key.substring(key.indexOf('-') + 1));
                      ByteBuffer got = read(t, key);
                      if (got != null) {
                        assertThat(got).as(key).isEqualTo(value(3000 + i, key.hashCode()));
                        hits++;
                      }
                    }
                  }
                  return hits;
                }));
      }
      for (Future<?> f : work) {
        f.get(2, TimeUnit.MINUTES);
      }
      for (Future<Integer> f : readers) {
        f.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    synchronized (dropped) {
      lost.addAll(dropped);
    }
    assertThat(written).as("status %s", t.status()).hasSize(writers * perWriter);
    assertThat(t.usedBytes()).isLessThanOrEqualTo(40 * FILE);
    assertThat(t.status().files()).isLessThanOrEqualTo(40);
    int held = t.records();
    assertThat(held + lost.size())
        .as("every record held or reported reclaimed")
        .isEqualTo(written.size());
    t.close();

    DiskTier again = tier(40);
    assertThat(again.records()).isEqualTo(held);
    assertThat(again.status().droppedAtStart()).isZero();
    for (String key : written) {
      int i = Integer.parseInt(key.substring(key.indexOf('-') + 1));
      ByteBuffer got = read(again, key);
      if (lost.contains(new DiskTier.ObjectRef(key, 1))) {
        assertThat(got).as(key + " was reclaimed").isNull();
      } else {
        assertThat(got).as(key).isEqualTo(value(3000 + i, key.hashCode()));
      }
    }
  }
}
