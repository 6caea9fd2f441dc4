package io.kvpool.storage.disk;

import io.kvpool.nativemem.Crc32c;
import io.kvpool.nativemem.HugePageMode;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.nativemem.SegmentOptions;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.FileRegion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A storage node's disk tier: values that left memory, as self-describing records ({@link
 * DiskRecord}) appended to large files in one folder, and the block metadata of those that have
 * some in a side file per file ({@link MetadataEntry}). Its cap is physical: it never has more
 * files than fit the cap whole (a file is at most {@code fileBytes} long, and with a side file the
 * two files' lengths rounded up to the file system's blocks are, so the bytes the files occupy —
 * records, headers, entries and garbage of removed records alike — stay under the cap whatever
 * {@code du} counts), and it reclaims whole files with their side files, least recently used first,
 * when a new file would pass the high watermark, down to the low one. Reclaimed records are
 * reported to the drop listener (the node tells the master those replicas are gone).
 *
 * <p>Bytes never pass through the Java heap: a spill writes views of segment memory with positional
 * writes, and a read either stages the value in native memory of its own, checks its CRC32C there
 * and is sent from there ({@link #read}), or checks it in small pieces and is sent by the kernel
 * from the file's pages ({@link #check}). A record whose CRC32C fails is a miss, never bytes.
 * Writes go through the page cache (data-plane/README.md, "Disk tier"): a record is in the kernel
 * once its append returned, so it survives the process (kill -9), not a power cut.
 *
 * <p>Faults never escape: an I/O error, a full filesystem or a vanished folder puts the tier in a
 * degraded state with the reason ({@link #status()}); spills fail (the node keeps serving from
 * memory) and are tried again after {@link #RETRY_MILLIS}. Thread-safe: the index and the files'
 * layout under this object's lock; reads' I/O and appends' value writes outside it. An append
 * reserves its record's place and writes its header under the lock, then writes the value outside
 * it, and only then indexes the record: a record reserved but never written (the process died) has
 * a header whose value CRC32C fails, so a rescan drops it and goes on with the records after it. A
 * file with writes in flight is never reclaimed.
 */
public final class DiskTier implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DiskTier.class);

  /** Kept free of the cap for the folder itself and the file system's own blocks of the files. */
  static final long RESERVE_BYTES = 64 << 10;

  static final long RETRY_MILLIS = 5_000;
  private static final String PREFIX = "tier-";
  private static final String SUFFIX = ".kvd";
  private static final String META_SUFFIX = ".kvm";

  /**
   * Heap the block metadata of the tier's records may take at most ({@link
   * BlockMetadata#heapBytes}); a record spilled past it keeps none, in the heap or in its file's
   * side file (its next leader announces it under its key).
   */
  static final long MAX_METADATA_HEAP_BYTES = 32L << 20;

  /**
   * The pieces {@link #check} reads a record's value in to check it: small enough to stay in the
   * CPU's cache between the read and the checksum.
   */
  static final int CHECK_CHUNK = 256 << 10;

  private static final SegmentOptions STAGING =
      SegmentOptions.defaults().hugePages(HugePageMode.NONE);

  /**
   * @param dir the tier's folder (created when missing at start, never re-created while running: a
   *     vanished folder may be an unmounted volume)
   * @param capBytes what the tier's files may occupy on disk, all included
   * @param fileBytes the size of one file (a multiple of 4096); a record larger than that is not
   *     spilled
   */
  public record Settings(
      Path dir, long capBytes, long fileBytes, double highWatermark, double lowWatermark) {
    public static final long DEFAULT_FILE_BYTES = 64L << 20;

    public Settings {
      if (fileBytes < 4096 || fileBytes % 4096 != 0) {
        throw new IllegalArgumentException(
            "disk tier file size " + fileBytes + " must be a multiple of 4096");
      }
      if (capBytes - RESERVE_BYTES < 2 * fileBytes) {
        throw new IllegalArgumentException(
            "disk tier size "
                + capBytes
                + " bytes holds fewer than two files of "
                + fileBytes
                + " bytes (plus "
                + RESERVE_BYTES
                + " bytes kept for the folder); give it at least "
                + (2 * fileBytes + RESERVE_BYTES)
                + " bytes or smaller files");
      }
      if (!(lowWatermark > 0 && lowWatermark < highWatermark && highWatermark <= 1)) {
        throw new IllegalArgumentException(
            "disk tier watermarks must satisfy 0 < low < high <= 1, got low "
                + lowWatermark
                + " and high "
                + highWatermark);
      }
    }

    /**
     * A tier of {@code capBytes} in {@code dir}: files of 64 MiB (fewer if the cap is small),
     * watermarks 0.9/0.8.
     */
    public static Settings of(Path dir, long capBytes) {
      long file = DEFAULT_FILE_BYTES;
      while (file > (1 << 20) && capBytes - RESERVE_BYTES < 8 * file) {
        file /= 2;
      }
      return new Settings(dir, capBytes, file, 0.9, 0.8);
    }

    public Settings withFileBytes(long bytes) {
      return new Settings(dir, capBytes, bytes, highWatermark, lowWatermark);
    }

    int maxFiles() {
      return (int) Math.min(Integer.MAX_VALUE, (capBytes - RESERVE_BYTES) / fileBytes);
    }
  }

  /** An object: key and generation. */
  public record ObjectRef(String key, long generation) {}

  /**
   * A record the tier holds, as the node reports it to the master; {@code metadata} null when it
   * has none.
   */
  public record Held(
      ObjectRef id, int wantedReplicas, int size, int checksum, BlockMetadata metadata) {}

  /** What {@code /status} says of the tier. {@code degraded} is null when healthy. */
  public record Status(
      String dir,
      long capBytes,
      long usedBytes,
      int files,
      int records,
      String degraded,
      long spills,
      long spillFailures,
      long reads,
      long misses,
      long reclaimedRecords,
      long reclaimedFiles,
      long droppedAtStart) {}

  /**
   * A record read for a reply and checked: {@link Staged} in native memory of its own, or {@link
   * Checked} where it lies in its file. Close it once its reply is sent (or failed).
   */
  public sealed interface Read extends AutoCloseable permits Staged, Checked {
    /** The value's size in bytes. */
    int length();

    @Override
    void close();
  }

  /** A value read from the tier into native memory of its own, checked; close it once sent. */
  public static final class Staged implements Read {
    private final NativeSegment memory;
    private final ByteBuffer value;
    private final StagingMemory staging;
    private final int permits;

    private Staged(NativeSegment memory, ByteBuffer value, StagingMemory staging, int permits) {
      this.memory = memory;
      this.value = value;
      this.staging = staging;
      this.permits = permits;
    }

    /** The value's bytes (a view of native memory). */
    public ByteBuffer value() {
      return value.duplicate();
    }

    @Override
    public int length() {
      return value.remaining();
    }

    @Override
    public void close() {
      staging.give(memory, permits);
    }
  }

  /**
   * A record checked where it lies ({@link #check}): its value is bytes {@code [position, position
   * + length)} of its file's channel, which stays open until this is closed. When the tier deletes
   * the file meanwhile (reclaimed or emptied), it stops the reply through {@code onDelete}, so that
   * the file's blocks are freed once the reply's send has failed and this is closed, not when a
   * stalled reader is done (the cap is physical). Close it once sent, or once the send failed.
   */
  public static final class Checked implements Read {
    private final DiskTier tier;
    private final TierFile file;
    private final long position;
    private final int length;
    private final Runnable onDelete;

    private Checked(DiskTier tier, TierFile file, long position, int length, Runnable onDelete) {
      this.tier = tier;
      this.file = file;
      this.position = position;
      this.length = length;
      this.onDelete = onDelete;
    }

    /** The value's bytes, for a reply the kernel sends from the file's pages. */
    public FileRegion region() {
      return new FileRegion(file.channel, position, length);
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public void close() {
      tier.sent(file, this);
    }
  }

  /**
   * Native memory that reads stage values in: at most its budget at once (reads wait for it), and
   * segments of power-of-two sizes kept for the next reads (up to {@link #KEEP_BYTES}), so that a
   * read pays neither a mapping nor its page faults (measured: a fresh 1 MiB segment per read
   * halved the tier's read rate).
   */
  private static final class StagingMemory {
    static final long KEEP_BYTES = 64L << 20;
    private final Semaphore budget;
    private final int budgetKib;
    private final Map<Long, java.util.ArrayDeque<NativeSegment>> idle = new HashMap<>();
    private long idleBytes;
    private boolean closed;

    StagingMemory(long bytes) {
      this.budgetKib =
          (int) Math.min(Integer.MAX_VALUE, Math.max(DiskRecord.MAX_VALUE, bytes) >> 10);
      this.budget = new Semaphore(budgetKib);
    }

    static long sizeClass(int size) {
      return Math.max(64 << 10, Long.highestOneBit(Math.max(1, size - 1)) << 1);
    }

    int permits(int size) {
      return (int) Math.min(budgetKib, sizeClass(size) >> 10);
    }

    /** A segment of at least {@code size} bytes within the budget, or null after 10 s. */
    NativeSegment take(int size, int permits) throws InterruptedException {
      if (!budget.tryAcquire(permits, 10, TimeUnit.SECONDS)) {
        return null;
      }
      long cls = sizeClass(size);
      synchronized (this) {
        java.util.ArrayDeque<NativeSegment> q = idle.get(cls);
        NativeSegment kept = q == null ? null : q.poll();
        if (kept != null) {
          idleBytes -= cls;
          return kept;
        }
      }
      try {
        return NativeSegment.allocate(cls, STAGING);
      } catch (RuntimeException e) {
        budget.release(permits);
        throw e;
      }
    }

    void give(NativeSegment memory, int permits) {
      boolean keep;
      synchronized (this) {
        keep = !closed && idleBytes + memory.size() <= KEEP_BYTES;
        if (keep) {
          idle.computeIfAbsent(memory.size(), k -> new java.util.ArrayDeque<>()).push(memory);
          idleBytes += memory.size();
        }
      }
      if (!keep) {
        memory.close();
      }
      budget.release(permits);
    }

    synchronized void close() {
      closed = true;
      idle.values().forEach(q -> q.forEach(NativeSegment::close));
      idle.clear();
      idleBytes = 0;
    }
  }

  /**
   * Reads wait this long for staging memory before they give up (the node answers
   * NODE_UNAVAILABLE).
   */
  public static final class BusyException extends IOException {
    BusyException(String message) {
      super(message);
    }
  }

  private static final class TierFile {
    final long seq;
    final Path path;
    final FileChannel channel;
    long size;

    /** The side file of its records' block metadata ({@link MetadataEntry}), opened when needed. */
    FileChannel meta;

    long metaSize;
    long stamp;
    int live;

    /** Appends that reserved a place in the file and are writing their value. */
    int writing;

    /**
     * Checks and replies reading the file's pages ({@link #check}, {@link Checked}): its channel
     * stays open while there are any.
     */
    int readers;

    /** The replies among them, stopped when the file is deleted. */
    final List<Checked> replies = new ArrayList<>(2);

    /** Deleted (reclaimed or emptied): its channel is closed once nothing reads it. */
    boolean deleted;

    TierFile(long seq, Path path, FileChannel channel, long size) {
      this.seq = seq;
      this.path = path;
      this.channel = channel;
      this.size = size;
    }

    Path metaPath() {
      return path.resolveSibling(metaName(seq));
    }
  }

  private record Location(TierFile file, long offset, DiskRecord record, BlockMetadata metadata) {
    long metadataHeap() {
      return metadata == null ? 0 : metadata.heapBytes();
    }
  }

  private final Settings settings;
  private final Consumer<List<ObjectRef>> dropped;
  private final Map<ObjectRef, Location> index = new HashMap<>();
  private final TreeMap<Long, TierFile> files = new TreeMap<>();

  /** How long a read of a record being written waits for the write (one record's write). */
  private static final long WRITE_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

  /**
   * Objects whose record is being written: a second append of one, and a read, wait for the first.
   */
  private final java.util.Set<ObjectRef> writing = new java.util.HashSet<>();

  private final StagingMemory staging;

  /**
   * What a file system block holds: a file and its side file together occupy their lengths each
   * rounded up to it.
   */
  private long blockBytes = 4096;

  private long metadataBytes;
  private FileChannel lockChannel;
  private FileLock lock;
  private TierFile active;
  private long nextSeq;
  private long clock;
  private String degraded;
  private long retryAtMillis;
  private long spills;
  private long spillFailures;
  private long reads;
  private long misses;
  private long reclaimedRecords;
  private long reclaimedFiles;
  private long droppedAtStart;
  private boolean closed;

  private DiskTier(Settings settings, Consumer<List<ObjectRef>> dropped, long stagingBytes) {
    this.settings = settings;
    this.dropped = dropped;
    this.staging = new StagingMemory(stagingBytes);
  }

  /**
   * Opens the tier in its folder: takes the folder's lock (one process per folder), rescans every
   * file — a torn last record is cut off, every record's checksums are verified, a record that
   * fails is dropped — and keeps the files within the cap. Never throws for the folder's faults:
   * the tier is then degraded and empty.
   *
   * @param dropped told which records the tier lost while running (reclaimed, corrupt), to tell the
   *     master
   * @param stagingBytes native memory that reads in flight may stage values in (at least one
   *     largest value)
   */
  public static DiskTier open(
      Settings settings, Consumer<List<ObjectRef>> dropped, long stagingBytes) {
    DiskTier tier = new DiskTier(settings, dropped, stagingBytes);
    long t0 = System.nanoTime();
    try {
      tier.lockFolder();
      tier.rescan();
    } catch (IOException | RuntimeException e) {
      tier.degrade(
          "cannot open the disk tier in " + settings.dir() + ": " + describe(e),
          System.currentTimeMillis());
      tier.closed =
          true; // without its folder's lock or its files it never writes: restart the node to try
      // again
    }
    LOG.info(
        "event=disk_tier_opened dir={} cap_bytes={} file_bytes={} files={} records={} dropped={} ms={} degraded=\"{}\"",
        settings.dir(),
        settings.capBytes(),
        settings.fileBytes(),
        tier.files.size(),
        tier.index.size(),
        tier.droppedAtStart,
        (System.nanoTime() - t0) / 1_000_000,
        tier.degraded == null ? "" : tier.degraded);
    return tier;
  }

  public Settings settings() {
    return settings;
  }

  private void lockFolder() throws IOException {
    Files.createDirectories(settings.dir());
    try {
      blockBytes = Math.max(blockBytes, Files.getFileStore(settings.dir()).getBlockSize());
    } catch (IOException | UnsupportedOperationException e) {
      LOG.debug("event=disk_block_size_unknown dir={} error={}", settings.dir(), e.toString());
    }
    lockChannel =
        FileChannel.open(
            settings.dir().resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    try {
      lock = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    }
    if (lock == null) {
      lockChannel.close();
      lockChannel = null;
      throw new IOException(
          "another process uses this folder as its disk tier (its .lock is held); give every"
              + " storage node a folder of its own");
    }
  }

  private void rescan() throws IOException {
    List<Path> found = new ArrayList<>();
    try (DirectoryStream<Path> dir =
        Files.newDirectoryStream(settings.dir(), PREFIX + "*" + SUFFIX)) {
      dir.forEach(found::add);
    }
    found.sort(Comparator.comparing(Path::toString));
    ByteBuffer chunk =
        ByteBuffer.allocateDirect(1 << 20); // checksums of the values scanned, outside the heap
    for (Path p : found) {
      long seq = parseSeq(p);
      if (seq < 0) {
        continue;
      }
      FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
      TierFile f = new TierFile(seq, p, ch, ch.size());
      f.stamp = ++clock;
      files.put(seq, f);
      nextSeq = Math.max(nextSeq, seq + 1);
      scan(f, chunk);
      scanMetadata(f);
    }
    // a cap lowered since: the oldest files go; their records were never reported, the inventory
    // just leaves them out
    while (files.size() > settings.maxFiles()) {
      TierFile oldest = files.firstEntry().getValue();
      droppedAtStart += recordsIn(oldest).size();
      deleteFile(oldest);
    }
    for (TierFile f : List.copyOf(files.values())) {
      if (f.live == 0) {
        deleteFile(f);
      }
    }
    deleteOrphanSideFiles();
    TierFile last = files.isEmpty() ? null : files.lastEntry().getValue();
    active = last != null && last.size < settings.fileBytes() ? last : null;
  }

  private static String metaName(long seq) {
    return String.format("%s%012d%s", PREFIX, seq, META_SUFFIX);
  }

  /**
   * Gives the records of {@code f} the block metadata its side file holds for them; cuts the side
   * file at the first entry that is torn or fails a check.
   */
  private void scanMetadata(TierFile f) throws IOException {
    Path p = f.metaPath();
    if (!Files.exists(p)) {
      return;
    }
    f.meta = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE);
    long size = f.meta.size();
    ByteBuffer frame = ByteBuffer.allocate(MetadataEntry.FRAME);
    ByteBuffer body = ByteBuffer.allocate(MetadataEntry.MAX_BODY + 4);
    long pos = 0;
    int adopted = 0;
    MetadataEntry e;
    while ((e = MetadataEntry.read(f.meta, pos, size, frame, body)) != null) {
      pos += MetadataEntry.length(frame);
      Location loc = index.get(e.id());
      if (loc != null
          && loc.file() == f
          && loc.offset() == e.offset()
          && loc.record().checksum() == e.checksum()
          && loc.metadata() == null
          && metadataBytes + e.metadata().heapBytes() <= MAX_METADATA_HEAP_BYTES) {
        index.put(e.id(), new Location(f, loc.offset(), loc.record(), e.metadata()));
        metadataBytes += e.metadata().heapBytes();
        adopted++;
      }
    }
    if (pos < size) {
      LOG.warn(
          "event=disk_metadata_truncated file={} from={} to={} reason=\"torn or unreadable entry\"",
          p,
          size,
          pos);
      f.meta.truncate(pos);
    }
    f.metaSize = pos;
    LOG.debug("event=disk_metadata_scanned file={} entries_adopted={}", p, adopted);
  }

  /** Side files whose tier file is gone (a release without side files reclaimed it). */
  private void deleteOrphanSideFiles() throws IOException {
    List<Path> orphans = new ArrayList<>();
    try (DirectoryStream<Path> dir =
        Files.newDirectoryStream(settings.dir(), PREFIX + "*" + META_SUFFIX)) {
      for (Path p : dir) {
        String name = p.getFileName().toString();
        long seq = parseSeq(name.substring(0, name.length() - META_SUFFIX.length()) + SUFFIX);
        if (seq < 0 || !files.containsKey(seq)) {
          orphans.add(p);
        }
      }
    }
    for (Path p : orphans) {
      Files.deleteIfExists(p);
    }
  }

  private static long parseSeq(Path p) {
    return parseSeq(p.getFileName().toString());
  }

  private static long parseSeq(String name) {
    try {
      return Long.parseLong(name.substring(PREFIX.length(), name.length() - SUFFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Indexes a file's records; cuts the file at the first header that is torn or not a record's. */
  private void scan(TierFile f, ByteBuffer chunk) throws IOException {
    long pos = 0;
    ByteBuffer fixed = ByteBuffer.allocate(DiskRecord.FIXED);
    while (pos < f.size) {
      fixed.clear();
      if (f.size - pos < DiskRecord.FIXED || !readFully(f.channel, fixed, pos)) {
        break;
      }
      int keyLength = DiskRecord.keyLength(fixed);
      if (keyLength < 0 || f.size - pos < DiskRecord.FIXED + keyLength) {
        break;
      }
      ByteBuffer header = ByteBuffer.allocate(DiskRecord.FIXED + keyLength);
      if (!readFully(f.channel, header, pos)) {
        break;
      }
      DiskRecord r = DiskRecord.parse(header);
      if (r == null || f.size - pos < r.totalBytes()) {
        break; // torn: the process died while appending it
      }
      if (valueChecksum(f.channel, pos + r.headerBytes(), r.size(), chunk) == r.checksum()) {
        index(new ObjectRef(r.key(), r.generation()), new Location(f, pos, r, null));
      } else {
        droppedAtStart++;
        LOG.warn(
            "event=disk_record_corrupt file={} offset={} key={} generation={}",
            f.path,
            pos,
            r.key(),
            r.generation());
      }
      pos += r.totalBytes();
    }
    if (pos < f.size) {
      LOG.warn(
          "event=disk_file_truncated file={} from={} to={} reason=\"torn or unreadable record\"",
          f.path,
          f.size,
          pos);
      f.channel.truncate(pos);
      f.size = pos;
    }
  }

  private static int valueChecksum(FileChannel ch, long pos, int size, ByteBuffer chunk)
      throws IOException {
    CRC32C crc = new CRC32C();
    long done = 0;
    while (done < size) {
      chunk.clear().limit((int) Math.min(chunk.capacity(), size - done));
      if (!readFully(ch, chunk, pos + done)) {
        return ~0;
      }
      chunk.flip();
      crc.update(chunk);
      done += chunk.limit();
    }
    return (int) crc.getValue();
  }

  static boolean readFully(FileChannel ch, ByteBuffer dst, long pos) throws IOException {
    long p = pos;
    while (dst.hasRemaining()) {
      int n = ch.read(dst, p);
      if (n < 0) {
        return false;
      }
      p += n;
    }
    return true;
  }

  private void index(ObjectRef id, Location loc) {
    Location old = index.put(id, loc);
    if (old != null) {
      old.file.live--;
      metadataBytes -= old.metadataHeap();
    }
    loc.file.live++;
    metadataBytes += loc.metadataHeap();
  }

  /**
   * Appends a value given as views of native memory ({@code value}, in value order, {@code size}
   * bytes in all), after checking that they still hold the value (its CRC32C): true once the record
   * is written. False when the tier is degraded, full of files with writes in flight, the value is
   * larger than a file, or the bytes do not match (their range was overwritten meanwhile) and the
   * writer that overwrote them did not spill the value first. The value's bytes are written outside
   * the tier's lock: reads and other appends go on meanwhile. {@code metadata} (null when none) is
   * kept with the record, in the heap and in its file's side file, unless the tier's metadata has
   * reached {@link #MAX_METADATA_HEAP_BYTES} or it does not fit an empty file with the record.
   */
  public boolean append(
      String key,
      long generation,
      int wantedReplicas,
      int size,
      int checksum,
      BlockMetadata metadata,
      ByteBuffer... value) {
    CRC32C crc = new CRC32C();
    for (ByteBuffer b : value) {
      crc.update(b.duplicate());
    }
    if ((int) crc.getValue() != checksum) {
      return heldDespiteChangedBytes(new ObjectRef(key, generation));
    }
    Reservation r =
        reserve(new DiskRecord(key, generation, wantedReplicas, size, checksum), metadata);
    if (r == null) {
      return contains(new ObjectRef(key, generation));
    }
    return r.write(value);
  }

  /**
   * A value whose memory no longer holds its bytes: the writer that took its range spilled it first
   * (true once that record is written), else it is lost (false, counted as a spill failure).
   */
  private synchronized boolean heldDespiteChangedBytes(ObjectRef id) {
    while (writing.contains(id) && !closed) {
      try {
        wait(); // that writer's append writes the record now; finish() wakes us
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (index.containsKey(id)) {
      return true;
    }
    spillFailures++;
    return false;
  }

  /**
   * A record's place in a file, its header written, its value not yet: {@link #write} writes the
   * value outside the tier's lock and indexes the record.
   */
  final class Reservation {
    private final ObjectRef id;
    private final DiskRecord record;
    private final TierFile file;
    private final long start;
    private final BlockMetadata metadata;
    private final long metaStart;
    private final long metaEnd;

    private Reservation(
        ObjectRef id,
        DiskRecord record,
        TierFile file,
        long start,
        BlockMetadata metadata,
        long metaStart,
        long metaEnd) {
      this.id = id;
      this.record = record;
      this.file = file;
      this.start = start;
      this.metadata = metadata;
      this.metaStart = metaStart;
      this.metaEnd = metaEnd;
    }

    /** Writes the value (views of native memory, in value order): true once it is indexed. */
    boolean write(ByteBuffer... value) {
      IOException failure = null;
      try {
        long pos = start + record.headerBytes();
        for (ByteBuffer v : value) {
          ByteBuffer b = v.duplicate();
          while (b.hasRemaining()) {
            pos += file.channel.write(b, pos);
          }
        }
        if (pos != start + record.totalBytes()) {
          failure =
              new IOException(
                  "the value's views hold " + (pos - start - record.headerBytes()) + " bytes");
        }
      } catch (IOException e) {
        failure = e;
      } catch (RuntimeException e) {
        failure = new IOException(e);
      }
      return finish(this, failure);
    }
  }

  /**
   * Reserves a record's place (reclaiming files first when a new one would pass the high watermark)
   * and writes its header there, and its metadata's entry in the file's side file, under the lock;
   * null when it is already held or being written (after waiting for that write) or cannot be
   * reserved (counted as a spill failure).
   */
  synchronized Reservation reserve(DiskRecord record, BlockMetadata metadata) {
    ObjectRef id = new ObjectRef(record.key(), record.generation());
    while (writing.contains(id) && !closed) {
      try {
        wait(); // another append writes this record; finish() wakes us (one record's write)
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    if (closed || index.containsKey(id)) {
      return null;
    }
    long now = System.currentTimeMillis();
    if (degraded != null && now < retryAtMillis) {
      spillFailures++;
      return null;
    }
    if (record.totalBytes() > settings.fileBytes()) {
      spillFailures++;
      return null;
    }
    long entryBytes = 0;
    if (metadata != null
        && metadataBytes + metadata.heapBytes() <= MAX_METADATA_HEAP_BYTES
        && metadata.limitProblem() == null) {
      entryBytes = new MetadataEntry(0, id, record.checksum(), metadata).encode().remaining();
    }
    if (entryBytes == 0 || !fits(0, record.totalBytes(), 0, entryBytes)) {
      metadata = null; // kept nowhere: its next leader announces the record under its key
      entryBytes = 0;
    }
    TierFile f = null;
    long start = 0;
    long metaStart = 0;
    try {
      f = fileFor(record.totalBytes(), entryBytes);
      if (f == null) {
        spillFailures++; // every file it could reclaim has writes in flight: not a fault
        return null;
      }
      start = f.size;
      metaStart = f.metaSize;
      ByteBuffer header = record.header();
      long pos = start;
      while (header.hasRemaining()) {
        pos += f.channel.write(header, pos);
      }
      f.size = start + record.totalBytes();
      if (metadata != null) {
        ByteBuffer entry = new MetadataEntry(start, id, record.checksum(), metadata).encode();
        if (f.meta == null) {
          f.meta =
              FileChannel.open(
                  f.metaPath(),
                  StandardOpenOption.CREATE,
                  StandardOpenOption.READ,
                  StandardOpenOption.WRITE);
        }
        long mpos = metaStart;
        while (entry.hasRemaining()) {
          mpos += f.meta.write(entry, mpos);
        }
        f.metaSize = mpos;
      }
      f.writing++;
      f.stamp = ++clock;
      writing.add(id);
      return new Reservation(id, record, f, start, metadata, metaStart, f.metaSize);
    } catch (IOException | RuntimeException e) {
      spillFailures++;
      if (f != null) {
        abandonTail(f, start);
        abandonMetaTail(f, metaStart);
      }
      degrade("cannot write to the disk tier in " + settings.dir() + ": " + describe(e), now);
      return null;
    }
  }

  /** Indexes a written record, or accounts for a failed write; true when indexed. */
  private synchronized boolean finish(Reservation r, IOException failure) {
    writing.remove(r.id);
    r.file.writing--;
    notifyAll();
    boolean kept = files.get(r.file.seq) == r.file;
    if (failure == null && kept && !closed) {
      index(r.id, new Location(r.file, r.start, r.record, r.metadata));
      spills++;
      if (degraded != null) {
        LOG.info("event=disk_tier_recovered dir={}", settings.dir());
        degraded = null;
      }
      return true;
    }
    spillFailures++;
    if (kept && !closed) {
      if (r.file.size == r.start + r.record.totalBytes()) {
        abandonTail(r.file, r.start);
      } // else later records follow: its bytes stay as garbage, its value CRC32C fails a rescan
      if (r.metadata != null && r.file.metaSize == r.metaEnd) {
        abandonMetaTail(r.file, r.metaStart);
      } // else its entry stays as garbage: it names no record a rescan keeps
      if (r.file.live == 0 && r.file.writing == 0 && r.file != active) {
        deleteFile(r.file);
      }
      degrade(
          "cannot write to the disk tier in " + settings.dir() + ": " + describe(failure),
          System.currentTimeMillis());
    }
    return false;
  }

  /**
   * Whether a file of {@code size} bytes whose side file has {@code metaSize} takes a record of
   * {@code bytes} and a metadata entry of at most {@code entryBytes}: the two files' blocks stay
   * within one file's size, so the tier's files never occupy more than the cap.
   */
  private boolean fits(long size, long bytes, long metaSize, long entryBytes) {
    if (metaSize + entryBytes == 0) {
      return size + bytes <= settings.fileBytes();
    }
    return blocks(size + bytes) + blocks(metaSize + entryBytes) <= settings.fileBytes();
  }

  private long blocks(long bytes) {
    return (bytes + blockBytes - 1) / blockBytes * blockBytes;
  }

  /**
   * The file to append a record of {@code bytes} (and a metadata entry of at most {@code
   * entryBytes}) to: the active one when it has room, else a new one (reclaiming first, never a
   * file with writes in flight); null when the cap has no room for a new file because every file it
   * could reclaim is being written.
   */
  private TierFile fileFor(long bytes, long entryBytes) throws IOException {
    if (active != null && fits(active.size, bytes, active.metaSize, entryBytes)) {
      return active;
    }
    if (active != null && active.live == 0 && active.writing == 0) {
      deleteFile(active); // its records were all removed while it was being appended to
    }
    int high = Math.max(1, (int) Math.floor(settings.maxFiles() * settings.highWatermark()));
    int low =
        Math.max(
            0, Math.min(high - 1, (int) Math.floor(settings.maxFiles() * settings.lowWatermark())));
    if (files.size() + 1 > high) {
      List<ObjectRef> gone = new ArrayList<>();
      while (files.size() > low) {
        TierFile lru = null;
        for (TierFile f : files.values()) {
          if (f.writing == 0 && (lru == null || f.stamp < lru.stamp)) {
            lru = f;
          }
        }
        if (lru == null) {
          break;
        }
        gone.addAll(recordsIn(lru));
        reclaimedRecords += lru.live;
        reclaimedFiles++;
        deleteFile(lru);
      }
      if (!gone.isEmpty()) {
        dropped.accept(gone);
      }
      if (files.size() + 1 > settings.maxFiles()) {
        return null;
      }
    }
    if (!Files.isDirectory(settings.dir())) {
      throw new NoSuchFileException(
          settings.dir().toString(), null, "the disk tier's folder vanished");
    }
    long seq = nextSeq++;
    Path p = settings.dir().resolve(String.format("%s%012d%s", PREFIX, seq, SUFFIX));
    FileChannel ch =
        FileChannel.open(
            p, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
    Files.deleteIfExists(settings.dir().resolve(metaName(seq))); // never another file's entries
    TierFile f = new TierFile(seq, p, ch, 0);
    f.stamp = ++clock;
    files.put(seq, f);
    active = f;
    return f;
  }

  private List<ObjectRef> recordsIn(TierFile f) {
    List<ObjectRef> out = new ArrayList<>(f.live);
    for (Map.Entry<ObjectRef, Location> e : List.copyOf(index.entrySet())) {
      if (e.getValue().file == f) {
        out.add(e.getKey());
        index.remove(e.getKey());
        metadataBytes -= e.getValue().metadataHeap();
      }
    }
    return out;
  }

  /**
   * Cuts a failed append's bytes off its file; a file that cannot be cut is closed for appends (the
   * rescan cuts it).
   */
  private void abandonTail(TierFile f, long start) {
    try {
      f.channel.truncate(start);
      f.size = start;
    } catch (IOException | RuntimeException e) {
      if (active == f) {
        active = null;
      }
    }
  }

  /**
   * Cuts a failed append's metadata entry off the side file (a rescan ignores it if this fails).
   */
  private void abandonMetaTail(TierFile f, long start) {
    if (f.meta == null || f.metaSize <= start) {
      return;
    }
    try {
      f.meta.truncate(start);
      f.metaSize = start;
    } catch (IOException | RuntimeException e) {
      LOG.debug("event=disk_metadata_truncate_failed file={} error={}", f.metaPath(), e.toString());
    }
  }

  private void deleteFile(TierFile f) {
    files.remove(f.seq);
    if (active == f) {
      active = null;
    }
    f.deleted = true;
    for (Checked reply : f.replies) {
      reply.onDelete.run(); // does not block: the reply's send fails, then it is closed
    }
    try {
      if (f.readers == 0) {
        f.channel.close(); // else by the last check or reply reading it
      }
      Files.deleteIfExists(f.path);
      if (f.meta != null) {
        f.meta.close();
      }
      Files.deleteIfExists(f.metaPath());
    } catch (IOException e) {
      degrade("cannot delete " + f.path + ": " + describe(e), System.currentTimeMillis());
    }
  }

  private void degrade(String reason, long now) {
    if (!reason.equals(degraded)) {
      LOG.error("event=disk_tier_degraded dir={} reason=\"{}\"", settings.dir(), reason);
    }
    degraded = reason;
    retryAtMillis = now + RETRY_MILLIS;
  }

  private static String describe(Throwable e) {
    String m = e.getMessage();
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  /** The size of the object's value in the tier, or -1 when the tier holds no record of it. */
  public synchronized int sizeOf(ObjectRef id) {
    Location loc = index.get(id);
    return loc == null ? -1 : loc.record().size();
  }

  /** Whether the tier holds a record of the object. */
  public synchronized boolean contains(ObjectRef id) {
    return index.containsKey(id);
  }

  /**
   * Reads an object's value into staging memory and checks it: null when the tier does not hold it
   * or its record fails a check (then it is dropped and reported). Throws {@link BusyException}
   * when staging memory stays taken.
   */
  public Staged read(ObjectRef id) throws BusyException {
    Location loc = locate(id);
    if (loc == null) {
      return null;
    }
    int size = loc.record().size();
    int permits = staging.permits(size);
    NativeSegment memory = takeStaging(size, permits);
    try {
      ByteBuffer value = memory.view(0, size);
      boolean ok =
          headerMatches(loc.file.channel, loc)
              && readFully(loc.file.channel, value.duplicate(), valueOffset(loc))
              && memory.crc32c(0, size) == loc.record().checksum();
      if (ok) {
        Staged s = new Staged(memory, value, staging, permits);
        memory = null;
        return s;
      }
      drop(id, loc, "its record fails its checksum");
      return null;
    } catch (IOException | RuntimeException e) {
      dropUnlessReclaimed(id, loc, e);
      return null;
    } finally {
      if (memory != null) {
        staging.give(memory, permits);
      }
    }
  }

  /**
   * Checks an object's record where it lies, for a reply sent from the file's pages: its header and
   * its value's CRC32C, read in pieces of {@link #CHECK_CHUNK} (staging memory that stays in the
   * CPU's cache, where {@link #read} stages the whole value). The checked bytes are the bytes sent:
   * a record's range is never written again while its file exists, and a file deleted while a reply
   * is sent from it is unlinked at once, its reply stopped through {@code onDelete} (which must not
   * block; it runs under the tier's lock) and its channel closed when that reply is closed. Null
   * when the tier does not hold the record, its file was deleted during the check, or the record
   * fails a check (then it is dropped and reported); throws {@link BusyException} when staging
   * memory stays taken.
   */
  public Checked check(ObjectRef id, Runnable onDelete) throws BusyException {
    Location loc = locate(id);
    if (loc == null) {
      return null;
    }
    TierFile f = loc.file;
    synchronized (this) {
      if (files.get(f.seq) != f) {
        return null; // reclaimed since: already reported
      }
      f.readers++;
    }
    Checked reply = null;
    try {
      if (checksumMatches(f, loc)) {
        synchronized (this) {
          if (!f.deleted) {
            reply = new Checked(this, f, valueOffset(loc), loc.record().size(), onDelete);
            f.replies.add(reply);
          }
        }
        return reply; // null when the file was deleted during the check: reported then
      }
      drop(id, loc, "its record fails its checksum");
      return null;
    } catch (BusyException e) {
      throw e; // staging memory stayed taken: the record was not read
    } catch (IOException | RuntimeException e) {
      dropUnlessReclaimed(id, loc, e);
      return null;
    } finally {
      if (reply == null) {
        sent(f, null);
      }
    }
  }

  /** Reads a record's header and value in pieces: whether both match the index's record. */
  private boolean checksumMatches(TierFile f, Location loc) throws IOException {
    int permits = staging.permits(CHECK_CHUNK);
    NativeSegment memory = takeStaging(CHECK_CHUNK, permits);
    try {
      int size = loc.record().size();
      long from = valueOffset(loc);
      if (!headerMatches(f.channel, loc)) {
        return false;
      }
      int crc = 0;
      for (int done = 0; done < size; ) {
        ByteBuffer chunk = memory.view(0, Math.min(CHECK_CHUNK, size - done));
        if (!readFully(f.channel, chunk.duplicate(), from + done)) {
          return false;
        }
        crc = Crc32c.update(crc, chunk);
        done += chunk.remaining();
      }
      return crc == loc.record().checksum();
    } finally {
      staging.give(memory, permits);
    }
  }

  /**
   * A check or a reply ({@code reply}, null for a check that made none) no longer reads the file: a
   * deleted file's channel closes with the last one.
   */
  private synchronized void sent(TierFile f, Checked reply) {
    if (reply != null) {
      f.replies.remove(reply);
    }
    if (--f.readers == 0 && f.deleted) {
      closeQuietly(f.channel);
    }
  }

  /**
   * The tier's record of the object, waiting for one being written (at most {@link
   * #WRITE_WAIT_NANOS}); null when it holds none. Counts a read.
   */
  private Location locate(ObjectRef id) throws BusyException {
    Location loc;
    synchronized (this) {
      // a record being written is read once its write ends: its value may have left memory for it
      // (a WRITE displaced it, a move to disk), so a miss now would lose it for this reader
      long deadline = System.nanoTime() + WRITE_WAIT_NANOS;
      while ((loc = index.get(id)) == null && writing.contains(id) && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new BusyException("its record is still being written; try again");
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(this, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new BusyException("interrupted while its record was being written");
        }
      }
      if (loc == null) {
        return null;
      }
      loc.file.stamp = ++clock;
      reads++;
    }
    return loc;
  }

  private NativeSegment takeStaging(int size, int permits) throws BusyException {
    NativeSegment memory;
    try {
      memory = staging.take(size, permits);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BusyException("interrupted while waiting for staging memory");
    }
    if (memory == null) {
      throw new BusyException("the disk tier's staging memory is taken by other reads; try again");
    }
    return memory;
  }

  private static boolean headerMatches(FileChannel channel, Location loc) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(loc.record().headerBytes());
    return readFully(channel, header, loc.offset())
        && loc.record().equals(DiskRecord.parse(header));
  }

  private static long valueOffset(Location loc) {
    return loc.offset() + loc.record().headerBytes();
  }

  /** A read that failed drops the record, unless its file was reclaimed meanwhile (reported). */
  private void dropUnlessReclaimed(ObjectRef id, Location loc, Exception e) {
    synchronized (this) {
      if (files.get(loc.file.seq) != loc.file) {
        return;
      }
    }
    drop(id, loc, "reading it failed: " + describe(e));
  }

  private static void closeQuietly(FileChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        LOG.debug("event=disk_read_channel_close_failed error={}", e.toString());
      }
    }
  }

  private void drop(ObjectRef id, Location loc, String why) {
    synchronized (this) {
      misses++;
      if (!index.remove(id, loc)) {
        return;
      }
      metadataBytes -= loc.metadataHeap();
      release(loc);
    }
    LOG.warn(
        "event=disk_record_dropped key={} generation={} file={} reason=\"{}\"",
        id.key(),
        id.generation(),
        loc.file.path,
        why);
    dropped.accept(List.of(id));
  }

  /**
   * Forgets an object's record (the master released it); a file left without records is deleted at
   * once.
   */
  public synchronized void remove(ObjectRef id) {
    Location loc = index.remove(id);
    if (loc != null) {
      metadataBytes -= loc.metadataHeap();
      release(loc);
    }
  }

  /** The block metadata of a record the tier holds, or null (none, or not held). */
  public synchronized BlockMetadata metadataOf(ObjectRef id) {
    Location loc = index.get(id);
    return loc == null ? null : loc.metadata();
  }

  private void release(Location loc) {
    loc.file.live--;
    if (loc.file.live == 0
        && loc.file.writing == 0
        && loc.file != active
        && files.get(loc.file.seq) == loc.file) {
      deleteFile(loc.file);
    }
  }

  /** The records the tier holds, for the node's inventory. */
  public synchronized List<Held> snapshot() {
    List<Held> out = new ArrayList<>(index.size());
    index.forEach(
        (id, loc) ->
            out.add(
                new Held(
                    id,
                    loc.record().wantedReplicas(),
                    loc.record().size(),
                    loc.record().checksum(),
                    loc.metadata())));
    return out;
  }

  public synchronized int records() {
    return index.size();
  }

  /**
   * The bytes the tier's files and side files hold (their lengths; what they occupy on disk is this
   * rounded up to blocks).
   */
  public synchronized long usedBytes() {
    long b = 0;
    for (TierFile f : files.values()) {
      b += f.size + f.metaSize;
    }
    return b;
  }

  public synchronized boolean degraded() {
    return degraded != null;
  }

  public synchronized Status status() {
    return new Status(
        settings.dir().toString(),
        settings.capBytes(),
        usedBytes(),
        files.size(),
        index.size(),
        degraded,
        spills,
        spillFailures,
        reads,
        misses,
        reclaimedRecords,
        reclaimedFiles,
        droppedAtStart);
  }

  @Override
  public synchronized void close() {
    closed = true;
    notifyAll();
    staging.close();
    for (TierFile f : files.values()) {
      try {
        f.channel.close();
        if (f.meta != null) {
          f.meta.close();
        }
      } catch (IOException e) {
        LOG.debug("event=disk_file_close_failed file={} error={}", f.path, e.toString());
      }
    }
    try {
      if (lock != null) {
        lock.release();
      }
      if (lockChannel != null) {
        lockChannel.close();
      }
    } catch (IOException e) {
      LOG.debug("event=disk_lock_release_failed dir={} error={}", settings.dir(), e.toString());
    }
  }
}
