package io.kvpool.nativemem;

import com.sun.jna.Pointer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A block of native memory owned by this object until {@link #close()}: an anonymous mapping, or
 * the shared mapping of a memory file ({@link #mapFile}) whose bytes outlive the process for the
 * next one to map again.
 *
 * <p>Thread safety: every method may be called from any thread. Copies, checksums and {@link #view}
 * run under a read lock and {@link #close()} takes the write lock, so a close that races with them
 * waits for the ones in progress, and those that start later fail with {@link
 * IllegalStateException}; a race never touches unmapped memory through this class.
 *
 * <p>Views are different: a {@link ByteBuffer} returned by {@link #view} points straight at the
 * mapping and the JVM does not know when it is unmapped. Callers must stop using every view before
 * closing the segment; a view used after close reads or writes unmapped memory and may crash the
 * JVM.
 */
public final class NativeSegment implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NativeSegment.class);

  /** Gives segments a total order so that code locking two or more segments never deadlocks. */
  private static final AtomicLong NEXT_ID = new AtomicLong();

  private final long id = NEXT_ID.getAndIncrement();
  private final long address;
  private final long size;
  private final HugePageMode hugePages;
  private final boolean locked;
  private final boolean numaBound;
  private final Path file;
  private final boolean keptFile;
  private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
  private boolean closed; // guarded by lifecycle

  /**
   * Direct buffers over the whole mapping, made once: window {@code i} starts at {@code i *
   * WINDOW_STRIDE} and runs {@link #WINDOW_OVERLAP} past the next one's start (or to the end), so
   * that a {@link #view} of up to that overlap always lies in one window and is a slice of it. A
   * JNI-made buffer per view cost a storage node about 4 % of its CPU during small puts.
   */
  private final ByteBuffer[] windows;

  static final long WINDOW_STRIDE = 1L << 30;
  static final long WINDOW_OVERLAP = 64L << 20;

  private NativeSegment(SegmentReport report, Path file) {
    this.address = report.base();
    this.size = report.size();
    this.hugePages = report.hugePages();
    this.locked = report.locked();
    this.numaBound = report.numaBound();
    this.file = file;
    this.keptFile = file != null && report.fileKept();
    this.windows = new ByteBuffer[(int) ((size + WINDOW_STRIDE - 1) / WINDOW_STRIDE)];
    for (int i = 0; i < windows.length; i++) {
      long start = i * WINDOW_STRIDE;
      long length = Math.min(WINDOW_STRIDE + WINDOW_OVERLAP, size - start);
      windows[i] = new Pointer(address + start).getByteBuffer(0, length);
    }
  }

  /**
   * Maps at least {@code size} bytes of zeroed memory (rounded up to the page size, or the huge
   * page size when explicit huge pages are obtained).
   *
   * @throws IllegalArgumentException when size &lt;= 0
   * @throws NativeMemoryException when the memory cannot be mapped
   */
  public static NativeSegment allocate(long size, SegmentOptions options) {
    Objects.requireNonNull(options, "segment options");
    if (size <= 0) {
      throw new IllegalArgumentException("segment size must be > 0 bytes but was " + size);
    }
    long[] out = new long[SegmentReport.WORDS];
    int rc =
        KvpoolNative.kvpool_segment_create(
            size, options.hugePages().ordinal(), options.numaNode(), options.lock() ? 1 : 0, out);
    if (rc != 0) {
      throw new NativeMemoryException(
          "cannot map a segment of "
              + size
              + " bytes: mmap failed with "
              + Errno.describe(rc)
              + "; free memory on this node or ask for a smaller segment");
    }
    SegmentReport report = SegmentReport.decode(out);
    NativeSegment segment = new NativeSegment(report, null);
    segment.logShortfalls(options, report);
    return segment;
  }

  /**
   * Maps the memory file {@code file} shared, creating it (mode 0600) when missing: its bytes stay
   * in the file's filesystem (tmpfs, or hugetlbfs for explicit huge pages) after this process, for
   * the next one to map. A file that already has the size mapped ({@code size} rounded up to the
   * page, or hugetlbfs page) keeps its bytes ({@link #keptFile()}); any other is emptied and
   * resized to it, so its bytes read as zero. The file stays after {@link #close()}; whoever no
   * longer wants its bytes deletes it.
   *
   * @throws IllegalArgumentException when size &lt;= 0
   * @throws NativeMemoryException when the file cannot be created, sized or mapped
   */
  public static NativeSegment mapFile(Path file, long size, SegmentOptions options) {
    Objects.requireNonNull(file, "memory file");
    Objects.requireNonNull(options, "segment options");
    if (size <= 0) {
      throw new IllegalArgumentException("segment size must be > 0 bytes but was " + size);
    }
    long[] out = new long[SegmentReport.WORDS];
    int rc =
        KvpoolNative.kvpool_segment_map_file(
            file.toString(),
            size,
            options.hugePages().ordinal(),
            options.numaNode(),
            options.lock() ? 1 : 0,
            out);
    if (rc != 0) {
      throw new NativeMemoryException(
          "cannot map memory file "
              + file
              + " of "
              + size
              + " bytes: "
              + Errno.describe(rc)
              + "; the folder must exist, be writable by this process and have room"
              + " (tmpfs size, or reserved huge pages for hugetlbfs)");
    }
    SegmentReport report = SegmentReport.decode(out);
    NativeSegment segment = new NativeSegment(report, file);
    if (options.hugePages() == HugePageMode.EXPLICIT
        && report.hugePages() != HugePageMode.EXPLICIT) {
      LOG.warn(
          "huge pages fell back requested={} obtained={} size={} file={} hint=put memory files on"
              + " hugetlbfs for explicit huge pages",
          options.hugePages(),
          report.hugePages(),
          size,
          file);
    }
    if (report.numaFailed() || report.lockFailed()) {
      segment.logShortfalls(options.hugePages(report.hugePages()), report);
    }
    return segment;
  }

  private void logShortfalls(SegmentOptions options, SegmentReport report) {
    if (report.hugePages().ordinal() < options.hugePages().ordinal()) {
      LOG.warn(
          "huge pages fell back requested={} obtained={} size={}{}",
          options.hugePages(),
          report.hugePages(),
          size,
          options.hugePages() == HugePageMode.EXPLICIT
              ? " hint=reserve huge pages with vm.nr_hugepages"
              : "");
    }
    if (report.numaFailed()) {
      LOG.warn(
          "NUMA binding failed node={} error=\"{}\" size={}",
          options.numaNode(),
          Errno.describe(report.numaErrno()),
          size);
    }
    if (report.lockFailed()) {
      LOG.warn(
          "mlock failed error=\"{}\" size={} hint=raise RLIMIT_MEMLOCK or grant CAP_IPC_LOCK",
          Errno.describe(report.lockErrno()),
          size);
    }
  }

  /** Bytes mapped; at least the size asked for. */
  public long size() {
    return size;
  }

  /** Address of the first byte. Meaningless after {@link #close()}. */
  public long address() {
    return address;
  }

  /** Huge page backing actually obtained. */
  public HugePageMode hugePages() {
    return hugePages;
  }

  /** Whether the pages are locked in memory (mlock succeeded). */
  public boolean locked() {
    return locked;
  }

  /** The memory file behind this segment, or null for anonymous memory. */
  public Path file() {
    return file;
  }

  /** Whether this segment mapped a memory file with the bytes an earlier process left there. */
  public boolean keptFile() {
    return keptFile;
  }

  /** Whether the memory policy prefers the requested NUMA node (mbind succeeded). */
  public boolean numaBound() {
    return numaBound;
  }

  /**
   * A direct buffer over {@code [offset, offset + length)} of this segment: no copy, position 0,
   * limit and capacity {@code length}. Must not be used after {@link #close()} (see class comment).
   */
  public ByteBuffer view(long offset, int length) {
    Ranges.check(offset, length, size, "segment");
    enter();
    try {
      int w = (int) (offset / WINDOW_STRIDE);
      long from = offset % WINDOW_STRIDE;
      if (w < windows.length && from + length <= windows[w].capacity()) {
        return windows[w].slice((int) from, length).order(ByteOrder.nativeOrder());
      }
      return new Pointer(address + offset).getByteBuffer(0, length);
    } finally {
      exit();
    }
  }

  /** Copies within this segment; the ranges may overlap (memmove). */
  public void copyWithin(long dstOffset, long srcOffset, long length) {
    copy(this, dstOffset, this, srcOffset, length);
  }

  /**
   * Copies {@code length} bytes from {@code src} to {@code dst} (memmove; they may be the same
   * segment).
   */
  public static void copy(
      NativeSegment dst, long dstOffset, NativeSegment src, long srcOffset, long length) {
    Objects.requireNonNull(dst, "destination segment");
    Objects.requireNonNull(src, "source segment");
    Ranges.check(dstOffset, length, dst.size, "destination segment");
    Ranges.check(srcOffset, length, src.size, "source segment");
    whileOpen(
        dst,
        src,
        () -> {
          KvpoolNative.kvpool_copy(dst.address + dstOffset, src.address + srcOffset, length);
          return 0;
        });
  }

  /**
   * Runs action while both segments (possibly the same one) are held open, locking them in {@link
   * #lockOrder()} so that concurrent two-segment operations never deadlock.
   */
  static long whileOpen(NativeSegment a, NativeSegment b, LongSupplier action) {
    NativeSegment first = a.id <= b.id ? a : b;
    NativeSegment second = first == a ? b : a;
    first.enter();
    try {
      if (second != first) {
        second.enter();
      }
      try {
        return action.getAsLong();
      } finally {
        if (second != first) {
          second.exit();
        }
      }
    } finally {
      first.exit();
    }
  }

  /**
   * CRC32C of {@code [offset, offset + length)}, equal to {@link java.util.zip.CRC32C} of the same
   * bytes.
   */
  public int crc32c(long offset, long length) {
    Ranges.check(offset, length, size, "segment");
    enter();
    try {
      return KvpoolNative.kvpool_crc32c(0, address + offset, length);
    } finally {
      exit();
    }
  }

  /** The system page size: the unit of {@link #replacePages}. */
  public static long pageSize() {
    return KvpoolNative.kvpool_page_size();
  }

  /**
   * Gives the pages lying wholly inside {@code [offset, offset + length)} new, zeroed pages of the
   * memory file; the old ones stay with whoever still references them (a socket that {@code
   * sendfile} handed them to), so that bytes already queued on a connection never change when the
   * range is written again. Pages only partly inside the range keep their bytes. For segments of
   * {@link #mapFile} only.
   *
   * @throws NativeMemoryException when the kernel refuses (anonymous memory, or no room left)
   */
  public void replacePages(long offset, long length) {
    Ranges.check(offset, length, size, "segment");
    if (file == null) {
      throw new NativeMemoryException(
          "cannot replace pages of anonymous memory: only a memory file's pages can be replaced");
    }
    enter();
    try {
      int rc = KvpoolNative.kvpool_segment_replace_pages(address, size, offset, length);
      if (rc != 0) {
        throw new NativeMemoryException(
            "cannot replace the pages of ["
                + offset
                + ", "
                + (offset + length)
                + ") of memory file "
                + file
                + ": "
                + Errno.describe(rc));
      }
    } finally {
      exit();
    }
  }

  /** Unmaps the memory. Idempotent; waits for copies and checksums in progress. */
  @Override
  public void close() {
    Lock write = lifecycle.writeLock();
    write.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      int rc = KvpoolNative.kvpool_segment_destroy(address, size);
      if (rc != 0) {
        throw new NativeMemoryException(
            "munmap of segment address=0x"
                + Long.toHexString(address)
                + " size="
                + size
                + " failed with "
                + Errno.describe(rc));
      }
    } finally {
      write.unlock();
    }
  }

  /** Takes the read lock and checks the segment is open; pair with {@link #exit()}. */
  void enter() {
    Lock read = lifecycle.readLock();
    read.lock();
    if (closed) {
      read.unlock();
      throw new IllegalStateException(
          "segment address=0x"
              + Long.toHexString(address)
              + " size="
              + size
              + " is closed; allocate a new segment");
    }
  }

  void exit() {
    lifecycle.readLock().unlock();
  }

  /** Total order used when several segments are locked together. */
  long lockOrder() {
    return id;
  }

  @Override
  public String toString() {
    return "NativeSegment{address=0x"
        + Long.toHexString(address)
        + ", size="
        + size
        + ", hugePages="
        + hugePages
        + ", locked="
        + locked
        + (file == null ? "" : ", file=" + file + ", kept=" + keptFile)
        + '}';
  }
}
