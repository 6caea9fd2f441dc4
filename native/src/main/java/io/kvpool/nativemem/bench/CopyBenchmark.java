package io.kvpool.nativemem.bench;

import io.kvpool.nativemem.Crc32c;
import io.kvpool.nativemem.MemcpyBaseline;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.nativemem.SegmentOptions;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.zip.CRC32C;

/**
 * Copy bandwidth of {@link NativeSegment#copy} against a plain C memcpy loop on the same buffers,
 * in the same process and run, and CRC32C throughput (hardware vs portable vs the JDK). The ratio,
 * not the absolute figure, is what compares across machines.
 *
 * <p>Usage: {@code CopyBenchmark [rounds]} (default 5; the best round of each is reported).
 */
public final class CopyBenchmark {
  private static final long[] BLOCK_SIZES = {64 << 10, 1 << 20, 16 << 20};

  /** Bytes copied per measured round of one block size: long enough to dwarf timer noise. */
  private static final long BYTES_PER_ROUND = 2L << 30;

  private static final long CRC_COLD_REGION = 256L << 20;
  private static final long CRC_BYTES_PER_ROUND = 1L << 30;

  private CopyBenchmark() {}

  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    if (rounds <= 0) {
      throw new IllegalArgumentException("rounds must be > 0 but was " + rounds);
    }
    System.out.printf(
        Locale.ROOT,
        "kvpool native copy benchmark: best of %d rounds, %d MiB copied per round%n",
        rounds,
        BYTES_PER_ROUND >> 20);
    System.out.printf(
        Locale.ROOT, "%-8s %16s %16s %8s%n", "block", "NativeSegment", "C memcpy", "ratio");
    for (long block : BLOCK_SIZES) {
      copyRow(block, rounds);
    }
    crcRows(rounds);
  }

  private static void copyRow(long block, int rounds) {
    long iterations = Math.max(1, BYTES_PER_ROUND / block);
    try (NativeSegment src = NativeSegment.allocate(block, SegmentOptions.defaults());
        NativeSegment dst = NativeSegment.allocate(block, SegmentOptions.defaults())) {
      fill(src.view(0, (int) block));
      fill(dst.view(0, (int) block));
      // warm-up: JIT the Java loop and fault in every page of both segments
      javaCopyNanos(dst, src, block, iterations / 4 + 1);
      MemcpyBaseline.timeNanos(dst, src, block, iterations / 4 + 1);
      long bestJava = Long.MAX_VALUE;
      long bestC = Long.MAX_VALUE;
      for (int round = 0; round < rounds; round++) {
        bestJava = Math.min(bestJava, javaCopyNanos(dst, src, block, iterations));
        bestC = Math.min(bestC, MemcpyBaseline.timeNanos(dst, src, block, iterations));
      }
      double bytes = (double) block * iterations;
      double javaGbps = bytes / bestJava;
      double cGbps = bytes / bestC;
      System.out.printf(
          Locale.ROOT,
          "%-8s %11.2f GB/s %11.2f GB/s %8.3f%n",
          label(block),
          javaGbps,
          cGbps,
          javaGbps / cGbps);
    }
  }

  private static long javaCopyNanos(
      NativeSegment dst, NativeSegment src, long block, long iterations) {
    long start = System.nanoTime();
    for (long i = 0; i < iterations; i++) {
      NativeSegment.copy(dst, 0, src, 0, block);
    }
    return System.nanoTime() - start;
  }

  private interface Checksum {
    int compute(ByteBuffer buffer);
  }

  private static void crcRows(int rounds) {
    System.out.printf(
        Locale.ROOT,
        "CRC32C (crc32 instruction: %s, VPCLMULQDQ with AVX2: %s); ratio to java.util.zip.CRC32C%n",
        Crc32c.hardwareAvailable(),
        Crc32c.clmulAvailable());
    // {region, piece}: one block checked again and again (in the caches, as a storage node checks
    // a value as it lands), and 1 MiB pieces of a region larger than the caches (from memory, as a
    // warm restart checks its memory files)
    long[][] cases = {{64 << 10, 64 << 10}, {1 << 20, 1 << 20}, {CRC_COLD_REGION, 1 << 20}};
    for (long[] c : cases) {
      try (NativeSegment segment = NativeSegment.allocate(c[0], SegmentOptions.defaults())) {
        ByteBuffer region = segment.view(0, (int) c[0]);
        fill(region);
        int piece = (int) c[1];
        System.out.printf(Locale.ROOT, "%s pieces of a %s region%n", label(piece), label(c[0]));
        double jdk =
            crcRow("java.util.zip.CRC32C", CopyBenchmark::jdkCrc, region, piece, rounds, 0);
        crcRow("libkvpool (dispatch)", Crc32c::compute, region, piece, rounds, jdk);
        if (Crc32c.clmulAvailable()) {
          crcRow("libkvpool clmul", Crc32c::computeClmul, region, piece, rounds, jdk);
        }
        if (Crc32c.hardwareAvailable()) {
          crcRow("libkvpool crc32 only", Crc32c::computeHardware, region, piece, rounds, jdk);
        }
        crcRow("libkvpool portable", Crc32c::computePortable, region, piece, rounds, jdk);
      }
    }
  }

  /**
   * Prints one row: the region's pieces in turn, best of {@code rounds} after a warm-up round;
   * returns its GB/s.
   */
  private static double crcRow(
      String name, Checksum checksum, ByteBuffer region, int piece, int rounds, double jdkRate) {
    int pieces = region.capacity() / piece;
    long iterations = CRC_BYTES_PER_ROUND / piece;
    int sink = 0;
    long best = Long.MAX_VALUE;
    for (int round = 0; round <= rounds; round++) {
      long start = System.nanoTime();
      for (long i = 0; i < iterations; i++) {
        int at = (int) (i % pieces) * piece;
        sink += checksum.compute(region.duplicate().position(at).limit(at + piece));
      }
      long elapsed = System.nanoTime() - start;
      if (round > 0) { // round 0 warms up
        best = Math.min(best, elapsed);
      }
    }
    double rate = (double) piece * iterations / best;
    System.out.printf(
        Locale.ROOT,
        "  %-22s %8.2f GB/s  %s (checksum sum %08x)%n",
        name,
        rate,
        jdkRate > 0 ? String.format(Locale.ROOT, "%5.2fx", rate / jdkRate) : "     ",
        sink);
    return rate;
  }

  private static int jdkCrc(ByteBuffer buffer) {
    CRC32C crc = new CRC32C();
    crc.update(buffer.duplicate());
    return (int) crc.getValue();
  }

  private static void fill(ByteBuffer buffer) {
    for (int i = 0; i < buffer.limit(); i += 8) {
      buffer.put(i, (byte) (i * 0x9E3779B1L >>> 13));
    }
  }

  private static String label(long bytes) {
    return bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
  }
}
