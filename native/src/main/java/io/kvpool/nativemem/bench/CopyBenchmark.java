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

  private static final int CRC_BLOCK = 1 << 20;
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
    try (NativeSegment segment = NativeSegment.allocate(CRC_BLOCK, SegmentOptions.defaults())) {
      ByteBuffer data = segment.view(0, CRC_BLOCK);
      fill(data);
      System.out.printf(
          Locale.ROOT,
          "CRC32C over %s blocks (hardware instruction available: %s)%n",
          label(CRC_BLOCK),
          Crc32c.hardwareAvailable());
      crcRow("libkvpool (dispatch)", Crc32c::compute, data, rounds);
      crcRow("libkvpool portable", Crc32c::computePortable, data, rounds);
      crcRow("java.util.zip.CRC32C", CopyBenchmark::jdkCrc, data, rounds);
    }
  }

  private static void crcRow(String name, Checksum checksum, ByteBuffer data, int rounds) {
    long iterations = CRC_BYTES_PER_ROUND / data.remaining();
    int sink = 0;
    long best = Long.MAX_VALUE;
    for (int round = 0; round <= rounds; round++) {
      long start = System.nanoTime();
      for (long i = 0; i < iterations; i++) {
        sink += checksum.compute(data);
      }
      long elapsed = System.nanoTime() - start;
      if (round > 0) { // round 0 warms up
        best = Math.min(best, elapsed);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "  %-22s %8.2f GB/s  (checksum sum %08x)%n",
        name,
        (double) data.remaining() * iterations / best,
        sink);
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
