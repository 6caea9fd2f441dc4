package io.kvpool.nativemem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeSegmentTest {
  private static final long PAGE = 4096;

  @Test
  void allocatesZeroedPageAlignedMemoryRoundedUpToThePage() {
    try (NativeSegment segment =
        NativeSegment.allocate(1000, SegmentOptions.defaults().hugePages(HugePageMode.NONE))) {
      assertThat(segment.size()).isEqualTo(PAGE);
      assertThat(segment.address() % PAGE).isZero();
      assertThat(segment.hugePages()).isEqualTo(HugePageMode.NONE);
      assertThat(segment.locked()).isFalse();
      ByteBuffer view = segment.view(0, (int) segment.size());
      for (int i = 0; i < view.limit(); i++) {
        assertThat(view.get(i)).isZero();
      }
    }
  }

  @Test
  void aMemoryFileKeepsItsBytesForTheNextMappingAndNotForAnotherSize(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("segment-0.mem");
    SegmentOptions options = SegmentOptions.defaults().hugePages(HugePageMode.NONE);
    try (NativeSegment segment = NativeSegment.mapFile(file, 3 * PAGE, options)) {
      assertThat(segment.keptFile()).isFalse();
      assertThat(segment.file()).isEqualTo(file);
      assertThat(segment.view(0, 8).getLong(0)).isZero();
      segment.view(PAGE, 8).putLong(0, 0x1122334455667788L);
    }
    assertThat(Files.size(file)).isEqualTo(3 * PAGE);
    try (NativeSegment segment = NativeSegment.mapFile(file, 3 * PAGE, options)) {
      assertThat(segment.keptFile()).isTrue();
      assertThat(segment.view(PAGE, 8).getLong(0)).isEqualTo(0x1122334455667788L);
      assertThat(segment.crc32c(PAGE, 8)).isEqualTo(segment.crc32c(PAGE, 8));
    }
    try (NativeSegment segment = NativeSegment.mapFile(file, 4 * PAGE, options)) {
      assertThat(segment.keptFile()).isFalse();
      assertThat(segment.view(PAGE, 8).getLong(0)).isZero();
    }
  }

  @Test
  void aMemoryFileInAMissingFolderIsRefusedNamingTheFile(@TempDir Path dir) {
    Path file = dir.resolve("missing").resolve("segment-0.mem");
    assertThatThrownBy(() -> NativeSegment.mapFile(file, PAGE, SegmentOptions.defaults()))
        .isInstanceOf(NativeMemoryException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("No such file");
  }

  @Test
  void explicitHugePagesFallBackToALowerModeWhenTooFewAreReserved() throws Exception {
    long request = 4 << 20;
    boolean reserved = hugePagesFree() * hugePageSize() >= request;
    try (NativeSegment segment =
        NativeSegment.allocate(
            request, SegmentOptions.defaults().hugePages(HugePageMode.EXPLICIT))) {
      if (reserved) {
        assertThat(segment.hugePages()).isEqualTo(HugePageMode.EXPLICIT);
      } else {
        assertThat(segment.hugePages()).isIn(HugePageMode.TRANSPARENT, HugePageMode.NONE);
      }
      assertThat(segment.size()).isGreaterThanOrEqualTo(request);
      segment.view(0, (int) request).put((int) request - 1, (byte) 1);
    }
  }

  @Test
  void transparentRequestObtainsTransparentOrNone() {
    try (NativeSegment segment = NativeSegment.allocate(4 << 20, SegmentOptions.defaults())) {
      assertThat(segment.hugePages()).isIn(HugePageMode.TRANSPARENT, HugePageMode.NONE);
    }
  }

  @Test
  void reportsLockAndNumaOutcomeWithoutFailing() {
    try (NativeSegment segment =
        NativeSegment.allocate(
            1 << 20,
            SegmentOptions.defaults().hugePages(HugePageMode.NONE).lock(true).numaNode(0))) {
      assertThat(segment.size()).isEqualTo(1 << 20);
    }
    try (NativeSegment segment =
        NativeSegment.allocate(1 << 20, SegmentOptions.defaults().numaNode(1000))) {
      assertThat(segment.numaBound()).isFalse();
      assertThat(segment.locked()).isFalse();
    }
  }

  @Test
  void writesThroughAViewAreSeenByNativeCopyAndChecksum() {
    byte[] text = "kv-cache block".getBytes(StandardCharsets.US_ASCII);
    try (NativeSegment a = NativeSegment.allocate(1 << 16, SegmentOptions.defaults());
        NativeSegment b = NativeSegment.allocate(1 << 16, SegmentOptions.defaults())) {
      ByteBuffer view = a.view(100, text.length);
      assertThat(view.isDirect()).isTrue();
      assertThat(view.position()).isZero();
      assertThat(view.limit()).isEqualTo(text.length);
      view.put(text);

      NativeSegment.copy(b, 5000, a, 100, text.length);
      byte[] back = new byte[text.length];
      b.view(5000, text.length).get(back);
      assertThat(back).isEqualTo(text);

      CRC32C expected = new CRC32C();
      expected.update(text);
      assertThat(Integer.toUnsignedLong(b.crc32c(5000, text.length)))
          .isEqualTo(expected.getValue());
      assertThat(Integer.toUnsignedLong(Crc32c.compute(a.view(100, text.length))))
          .isEqualTo(expected.getValue());
    }
  }

  @Test
  void copyWithinHandlesOverlap() {
    try (NativeSegment segment = NativeSegment.allocate(PAGE, SegmentOptions.defaults())) {
      ByteBuffer view = segment.view(0, 64);
      for (int i = 0; i < 64; i++) {
        view.put(i, (byte) i);
      }
      segment.copyWithin(8, 0, 32);
      for (int i = 0; i < 32; i++) {
        assertThat(view.get(8 + i)).isEqualTo((byte) i);
      }
      segment.copyWithin(0, 8, 32);
      for (int i = 0; i < 32; i++) {
        assertThat(view.get(i)).isEqualTo((byte) i);
      }
    }
  }

  @Test
  void rejectsBadSizesAndRanges() {
    assertThatThrownBy(() -> NativeSegment.allocate(0, SegmentOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be > 0");
    assertThatThrownBy(() -> NativeSegment.allocate(-5, SegmentOptions.defaults()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> NativeSegment.allocate(Long.MAX_VALUE, SegmentOptions.defaults()))
        .isInstanceOf(NativeMemoryException.class)
        .hasMessageContaining("cannot map");
    assertThatThrownBy(() -> SegmentOptions.defaults().numaNode(-2))
        .isInstanceOf(IllegalArgumentException.class);
    try (NativeSegment segment = NativeSegment.allocate(PAGE, SegmentOptions.defaults())) {
      assertThatThrownBy(() -> segment.view(-1, 10)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> segment.view(0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> segment.view(PAGE - 10, 11))
          .isInstanceOf(IndexOutOfBoundsException.class)
          .hasMessageContaining("outside segment of 4096 bytes");
      assertThatThrownBy(() -> segment.crc32c(Long.MAX_VALUE, 10))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> segment.crc32c(10, Long.MAX_VALUE))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> segment.copyWithin(0, PAGE, 1))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> segment.copyWithin(Long.MIN_VALUE, 0, 1))
          .isInstanceOf(IndexOutOfBoundsException.class);
      assertThat(segment.view(PAGE, 0).limit()).isZero();
    }
  }

  @Test
  void viewsOnEitherSideOfAWindowBoundaryShareTheSameBytes() {
    long boundary = NativeSegment.WINDOW_STRIDE;
    long overlap = NativeSegment.WINDOW_OVERLAP;
    SegmentOptions options = SegmentOptions.defaults().hugePages(HugePageMode.NONE);
    // mapped, not touched: only the pages written below take memory
    try (NativeSegment segment = NativeSegment.allocate(boundary + 2 * overlap, options)) {
      ByteBuffer inFirst = segment.view(boundary - 8, 16); // the first window's overlap
      inFirst.putLong(0, 0x0102030405060708L);
      inFirst.putLong(8, 0x1112131415161718L);
      ByteBuffer inSecond = segment.view(boundary, 8); // the second window
      assertThat(inSecond.getLong(0)).isEqualTo(0x1112131415161718L);
      // longer than the overlap and across the boundary: made on its own, same memory
      ByteBuffer across = segment.view(boundary - overlap, (int) (2 * overlap));
      assertThat(across.capacity()).isEqualTo(2 * overlap);
      assertThat(across.getLong((int) overlap - 8)).isEqualTo(0x0102030405060708L);
      across.putLong((int) overlap + 8, 42);
      assertThat(segment.view(boundary + 8, 8).getLong(0)).isEqualTo(42);
      ByteBuffer last = segment.view(segment.size() - 8, 8);
      last.putLong(0, 7);
      assertThat(segment.view(segment.size() - 16, 16).getLong(8)).isEqualTo(7);
      assertThat(segment.view(segment.size(), 0).limit()).isZero();
      for (ByteBuffer b : List.of(inFirst, inSecond, across, last)) {
        assertThat(b.order()).isEqualTo(ByteOrder.nativeOrder());
        assertThat(b.position()).isZero();
        assertThat(b.limit()).isEqualTo(b.capacity());
      }
    }
  }

  @Test
  void useAfterCloseIsRefusedAndCloseIsIdempotent() {
    NativeSegment segment = NativeSegment.allocate(PAGE, SegmentOptions.defaults());
    NativeSegment other = NativeSegment.allocate(PAGE, SegmentOptions.defaults());
    segment.close();
    segment.close();
    assertThatThrownBy(() -> segment.view(0, 1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> segment.crc32c(0, 1)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> segment.copyWithin(0, 1, 1)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> NativeSegment.copy(other, 0, segment, 0, 1))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> NativeSegment.copy(segment, 0, other, 0, 1))
        .isInstanceOf(IllegalStateException.class);
    other.close();
  }

  private static long hugePagesFree() throws IOException {
    return meminfo("HugePages_Free:");
  }

  private static long hugePageSize() throws IOException {
    return meminfo("Hugepagesize:") * 1024;
  }

  private static long meminfo(String key) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
      if (line.startsWith(key)) {
        return Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    return 0;
  }
}
