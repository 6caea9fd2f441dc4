package io.kvpool.storage.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.FileRegion;
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
import java.util.concurrent.atomic.AtomicInteger;
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
    return t.append(key, 1, 2, v.remaining(), crc(v), null, v.duplicate());
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
  void aTierReopenedWithASmallerCapDropsItsOldestFilesWithTheirRecords() throws IOException {
    DiskTier t = tier(10);
    for (int i = 0; i < 5; i++) {
      assertThat(append(t, "k" + i, value(10_000, i), metadata(i, 2, 10))).isTrue(); // a file each
    }
    t.close();
    DiskTier smaller = tier(3);
    assertThat(smaller.status().files()).isEqualTo(3);
    assertThat(smaller.status().droppedAtStart()).isEqualTo(2);
    assertThat(smaller.records()).isEqualTo(3);
    assertThat(smaller.snapshot())
        .as("the inventory lists only records still on disk")
        .extracting(h -> h.id().key())
        .containsExactlyInAnyOrder("k2", "k3", "k4");
    assertThat(smaller.contains(new DiskTier.ObjectRef("k0", 1))).isFalse();
    assertThat(read(smaller, "k4")).isEqualTo(value(10_000, 4));
    assertThat(sideFiles(dir)).hasSize(3);
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
    assertThat(t.append("c", 1, 1, 100, crc(v) ^ 1, null, v)).isFalse();
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
    assertThat(second.append("x", 1, 1, 1, 0, null, ByteBuffer.allocateDirect(1))).isFalse();
  }

  /** A value of several {@link DiskTier#CHECK_CHUNK} pieces and a part of one. */
  private static final int CHECKED_SIZE = 2 * DiskTier.CHECK_CHUNK + 12_345;

  private DiskTier tierOfLargeFiles() {
    long fileBytes = 1 << 20;
    DiskTier t =
        DiskTier.open(
            new DiskTier.Settings(dir, DiskTier.RESERVE_BYTES + 4 * fileBytes, fileBytes, 0.9, 0.8),
            dropped::addAll,
            1 << 20);
    open.add(t);
    return t;
  }

  private static ByteBuffer bytesOf(DiskTier.Checked c) throws IOException {
    FileRegion r = c.region();
    ByteBuffer got = ByteBuffer.allocate((int) r.length());
    while (got.hasRemaining()) {
      if (r.file().read(got, r.position() + got.position()) < 0) {
        break;
      }
    }
    return got.flip();
  }

  @Test
  void aRecordCheckedWhereItLiesIsItsExactBytesAndItsReplyIsStoppedWhenItsFileIsDeleted()
      throws IOException {
    DiskTier t = tierOfLargeFiles();
    ByteBuffer v = value(CHECKED_SIZE, 5);
    assertThat(append(t, "a", v)).isTrue();
    assertThat(t.sizeOf(new DiskTier.ObjectRef("a", 1))).isEqualTo(CHECKED_SIZE);
    AtomicInteger stops = new AtomicInteger();
    assertThat(t.check(new DiskTier.ObjectRef("nothing", 1), stops::incrementAndGet)).isNull();
    assertThat(t.sizeOf(new DiskTier.ObjectRef("nothing", 1))).isEqualTo(-1);
    Path file = onlyFile(dir);
    assertThat(append(t, "b", value(CHECKED_SIZE, 7))).isTrue(); // a file of its own: a's is full
    DiskTier.Checked c = t.check(new DiskTier.ObjectRef("a", 1), stops::incrementAndGet);
    assertThat(c.length()).isEqualTo(CHECKED_SIZE);
    assertThat(bytesOf(c)).isEqualTo(v);
    try (DiskTier.Checked other =
        t.check(new DiskTier.ObjectRef("b", 1), () -> fail("b's file was not deleted"))) {
      assertThat(other.region().file()).isNotSameAs(c.region().file());
    }
    assertThat(stops).as("a reply whose file stays is not stopped").hasValue(0);
    t.remove(new DiskTier.ObjectRef("a", 1));
    assertThat(file).as("a file left without records is deleted").doesNotExist();
    assertThat(stops).as("the reply sent from the deleted file is stopped").hasValue(1);
    assertThat(bytesOf(c))
        .as("its channel stays open until the stopped reply is closed: never other bytes")
        .isEqualTo(v);
    c.close();
    assertThat(c.region().file().isOpen())
        .as("closed with the last reply from it: the file's blocks are freed")
        .isFalse();
    assertThat(t.check(new DiskTier.ObjectRef("a", 1), stops::incrementAndGet)).isNull();
    assertThat(stops).hasValue(1);
    assertThat(t.status().reads()).as("the records found").isEqualTo(2);
    assertThat(dropped).isEmpty();
  }

  @Test
  void aRecordCheckedWhereItLiesThatFailsItsChecksumIsAMissAndReported() throws IOException {
    DiskTier t = tierOfLargeFiles();
    append(t, "a", value(CHECKED_SIZE, 6));
    try (FileChannel ch =
        FileChannel.open(onlyFile(dir), StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      // a byte in the value's last piece, flipped: the pieces before it check out on their own
      long at = 28 + 1 + 2L * DiskTier.CHECK_CHUNK + 100;
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, at);
      ch.write(ByteBuffer.wrap(new byte[] {(byte) ~one.get(0)}), at);
    }
    assertThat(t.check(new DiskTier.ObjectRef("a", 1), () -> {})).isNull();
    assertThat(dropped).containsExactly(new DiskTier.ObjectRef("a", 1));
    assertThat(t.status().misses()).isEqualTo(1);
    assertThat(t.contains(new DiskTier.ObjectRef("a", 1))).isFalse();
  }

  private static Path onlyFile(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".kvd")).findFirst().orElseThrow();
    }
  }

  private static BlockMetadata metadata(int seed, int hashes, int tokens) {
    Random r = new Random(seed);
    List<byte[]> h = new ArrayList<>();
    for (int i = 0; i < hashes; i++) {
      byte[] b = new byte[32];
      r.nextBytes(b);
      h.add(b);
    }
    return new BlockMetadata(
        false, h, new byte[0], r.ints(tokens, 0, 150_000).toArray(), 16, seed % 3);
  }

  private static boolean append(DiskTier t, String key, ByteBuffer v, BlockMetadata m) {
    return t.append(key, 1, 2, v.remaining(), crc(v), m, v.duplicate());
  }

  private static BlockMetadata metadataOf(DiskTier t, String key) {
    return t.metadataOf(new DiskTier.ObjectRef(key, 1));
  }

  private static List<Path> sideFiles(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(p -> p.toString().endsWith(".kvm")).sorted().toList();
    }
  }

  /** What the folder occupies on disk, as {@code du} counts it. */
  private static long du(Path dir) throws Exception {
    Process p =
        new ProcessBuilder("du", "-s", "--block-size=1", dir.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    assertThat(p.waitFor()).as(out).isZero();
    return Long.parseLong(out.split("\\s+")[0]);
  }

  @Test
  void blockMetadataStaysWithItsRecordAcrossAReopenAndGoesWithIt() throws IOException {
    DiskTier t = tier(10);
    BlockMetadata ma = metadata(1, 2, 48);
    BlockMetadata mc = metadata(3, 64, 1024);
    assertThat(append(t, "a", value(2000, 1), ma)).isTrue();
    assertThat(append(t, "b", value(2000, 2), null)).isTrue();
    assertThat(append(t, "c", value(2000, 3), mc)).isTrue();
    assertThat(metadataOf(t, "a")).isEqualTo(ma);
    assertThat(metadataOf(t, "b")).isNull();
    assertThat(t.snapshot())
        .filteredOn(h -> h.id().key().equals("c"))
        .extracting(DiskTier.Held::metadata)
        .containsExactly(mc);
    t.close();

    DiskTier again = tier(10);
    assertThat(again.records()).isEqualTo(3);
    assertThat(metadataOf(again, "a")).as("a rescanned record keeps its metadata").isEqualTo(ma);
    assertThat(metadataOf(again, "b")).isNull();
    assertThat(metadataOf(again, "c")).isEqualTo(mc);
    assertThat(read(again, "c")).isEqualTo(value(2000, 3));

    again.remove(new DiskTier.ObjectRef("a", 1));
    assertThat(metadataOf(again, "a")).isNull();
    again.remove(new DiskTier.ObjectRef("b", 1));
    again.remove(new DiskTier.ObjectRef("c", 1));
    assertThat(append(again, "d", value(10_000, 4), null)).isTrue(); // the first file is now full
    again.remove(new DiskTier.ObjectRef("d", 1));
    assertThat(sideFiles(dir)).as("a reclaimed file's side file goes with it").isEmpty();
  }

  @Test
  void aDamagedSideFileLosesOnlyTheMetadataFromTheDamageOnNeverARecord() throws IOException {
    DiskTier t = tier(10);
    for (int i = 0; i < 3; i++) {
      assertThat(append(t, "k" + i, value(1000, i), metadata(i, 4, 100))).isTrue();
    }
    // a record reserved with its metadata whose value was never written (the process died)
    assertThat(t.reserve(new DiskRecord("hole", 1, 2, 1000, 7), metadata(9, 4, 100))).isNotNull();
    assertThat(append(t, "k3", value(1000, 3), metadata(3, 4, 100))).isTrue();
    t.close();
    Path side = sideFiles(dir).get(0);
    long size = Files.size(side);
    long entry = size / 5; // five entries of the same size
    try (FileChannel ch =
        FileChannel.open(side, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {0x4B, 0x56, 0x4D, 0x31, 0, 0}), size); // a torn entry
    }
    DiskTier again = tier(10);
    assertThat(again.records()).isEqualTo(4);
    for (int i = 0; i < 4; i++) {
      assertThat(metadataOf(again, "k" + i)).as("k" + i).isEqualTo(metadata(i, 4, 100));
    }
    assertThat(Files.size(side)).as("the torn entry cut").isEqualTo(size);
    again.close();

    try (FileChannel ch =
        FileChannel.open(side, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      long inK1 = entry + 30; // a byte of k1's entry
      ch.read(one, inK1);
      ch.write(one.put(0, (byte) (one.get(0) ^ 1)).rewind(), inK1);
    }
    DiskTier third = tier(10);
    assertThat(third.records()).as("every record served").isEqualTo(4);
    assertThat(metadataOf(third, "k0")).isEqualTo(metadata(0, 4, 100));
    for (int i = 1; i < 4; i++) {
      assertThat(metadataOf(third, "k" + i)).as("k" + i + " from the damage on").isNull();
      assertThat(read(third, "k" + i)).isEqualTo(value(1000, i));
    }
    assertThat(Files.size(side)).as("cut at the damaged entry").isEqualTo(entry);
    assertThat(append(third, "k4", value(1000, 4), metadata(4, 4, 100))).isTrue();
    third.close();
    assertThat(metadataOf(tier(10), "k4"))
        .as("appended after the cut")
        .isEqualTo(metadata(4, 4, 100));
  }

  @Test
  void sideFilesWithoutTheirTierFileOrNamingOtherRecordsGiveNothing() throws IOException {
    DiskTier t = tier(10);
    assertThat(append(t, "a", value(1000, 1), metadata(1, 2, 10))).isTrue();
    t.close();
    Path side = sideFiles(dir).get(0);
    byte[] entryOfA = Files.readAllBytes(side);
    // a release without side files reclaimed the file and wrote another in its place: the side
    // file stayed, naming a record that is not there
    Files.delete(onlyFile(dir));
    Files.delete(side);
    DiskTier other = tier(10);
    assertThat(append(other, "b", value(1000, 2), null)).isTrue();
    other.close();
    Files.write(sideFiles(dir).isEmpty() ? side : sideFiles(dir).get(0), entryOfA);
    Path orphan = dir.resolve("tier-000000000777.kvm");
    Files.write(orphan, entryOfA);

    DiskTier again = tier(10);
    assertThat(again.records()).isEqualTo(1);
    assertThat(metadataOf(again, "b")).isNull();
    assertThat(read(again, "b")).isEqualTo(value(1000, 2));
    assertThat(orphan).as("a side file without its tier file is deleted").doesNotExist();
  }

  @Test
  void sideFilesStayWithinTheCapAsDuCountsIt() throws Exception {
    int files = 12;
    DiskTier t = tier(files);
    long cap = DiskTier.RESERVE_BYTES + files * FILE;
    long maxDu = 0;
    int kept = 0;
    for (int i = 0; i < 400; i++) {
      // entries of about 5 KiB next to records of 1-3 KiB: side files weigh more than records
      BlockMetadata m = metadata(i, 32, 800);
      assertThat(append(t, "k" + i, value(1000 + (i % 3) * 1000, i), m)).isTrue();
      if (i % 10 == 0) {
        maxDu = Math.max(maxDu, du(dir));
      }
    }
    maxDu = Math.max(maxDu, du(dir));
    assertThat(maxDu).as("du of the tier, cap %d", cap).isLessThanOrEqualTo(cap);
    assertThat(t.usedBytes()).isLessThanOrEqualTo(files * FILE);
    for (DiskTier.Held h : t.snapshot()) {
      int i = Integer.parseInt(h.id().key().substring(1));
      assertThat(h.metadata()).as(h.id().key()).isEqualTo(metadata(i, 32, 800));
      kept++;
    }
    assertThat(kept).as("records held").isGreaterThan(0);
    assertThat(sideFiles(dir)).isNotEmpty();
  }

  @Test
  void aRecordReservedButNeverWrittenIsDroppedOnRescanAndTheRecordsAfterItAreKept()
      throws IOException {
    DiskTier t = tier(10);
    ByteBuffer a = value(3000, 1);
    ByteBuffer x = value(3000, 2);
    ByteBuffer b = value(3000, 3);
    assertThat(append(t, "a", a)).isTrue();
    DiskTier.Reservation hole = t.reserve(new DiskRecord("x", 1, 2, 3000, crc(x)), null);
    assertThat(hole).isNotNull();
    // reads and appends go on while x's value is not written
    assertThat(append(t, "b", b)).isTrue();
    assertThat(read(t, "a")).isEqualTo(a);
    assertThat(t.contains(new DiskTier.ObjectRef("x", 1)))
        .as("not indexed before its value is written")
        .isFalse();
    long endOfB = Files.size(onlyFile(dir));
    assertThat(t.reserve(new DiskRecord("y", 1, 2, 3000, crc(value(3000, 4))), null)).isNotNull();
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
    DiskTier.Reservation r0 = t.reserve(new DiskRecord("k0", 1, 2, 10_000, crc(v0)), null);
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
      inFlight.add(t.reserve(new DiskRecord("k" + i, 1, 2, 10_000, crc(v)), null));
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
    DiskTier.Reservation r = t.reserve(new DiskRecord("busy", 1, 2, v.remaining(), crc(v)), null);
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
