package io.kvpool.bench.compare;

import io.kvpool.storage.ReadServing;
import io.kvpool.storage.disk.DiskTier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The disk tier's own read path, apart from clients and sockets: the stopped pool's tier folders
 * opened in this process (a rescan), every record read by N threads as a storage node serves a disk
 * read (from {@link ReadServing#MIN_FILE_REPLY_BYTES}: checked where it lies, its CRC32C over
 * pieces read into staging memory, as before a reply sent from the file, the send itself not
 * counted; smaller: staged in native memory and checked there): once untimed (the code's and the
 * staging memory's warm-up), once timed from the page cache, and once timed after the folders'
 * cached pages were dropped.
 */
final class TierReadPath {
  /** What one pass did; {@code bytes} of the values read and checked. */
  record Result(long records, long misses, long bytes, long nanos) {
    double gigabytesPerSecond() {
      return nanos == 0 ? 0 : bytes / (double) nanos;
    }
  }

  /** The timed passes. */
  record Passes(Result pageCache, Result cold) {}

  /** Native memory the reads in flight stage values in, as a storage node's. */
  private static final long STAGING_BYTES = 256L << 20;

  private TierReadPath() {}

  /**
   * @param folders each node's tier folder (no node runs on it any more)
   * @param dropPageCache drops the folders' cached pages before the cold pass
   */
  static Passes measure(
      Map<String, Path> folders, long capBytes, int threads, PageCacheDrop dropPageCache)
      throws Exception {
    List<DiskTier> tiers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Read> reads = new ArrayList<>();
      for (Path folder : folders.values()) {
        DiskTier tier =
            DiskTier.open(DiskTier.Settings.of(folder, capBytes), lost -> {}, STAGING_BYTES);
        tiers.add(tier);
        // in key order: the workload's numbered keys were spilled in about that order, so the
        // reads run through the files as the clients' cold passes do
        tier.snapshot().stream()
            .map(DiskTier.Held::id)
            .sorted(
                Comparator.comparingInt((DiskTier.ObjectRef id) -> id.key().length())
                    .thenComparing(DiskTier.ObjectRef::key))
            .forEach(id -> reads.add(new Read(tier, id)));
      }
      pass(reads, threads, pool);
      Result pageCache = pass(reads, threads, pool);
      dropPageCache.drop(folders.values());
      return new Passes(pageCache, pass(reads, threads, pool));
    } finally {
      pool.shutdownNow();
      tiers.forEach(DiskTier::close);
    }
  }

  private record Read(DiskTier tier, DiskTier.ObjectRef id) {}

  private static Result pass(List<Read> reads, int threads, ExecutorService pool)
      throws InterruptedException {
    AtomicLong bytes = new AtomicLong();
    AtomicLong misses = new AtomicLong();
    List<Future<?>> running = new ArrayList<>();
    long start = System.nanoTime();
    for (int t = 0; t < threads; t++) {
      int me = t;
      running.add(
          pool.submit(
              () -> {
                for (int i = me; i < reads.size(); i += threads) {
                  Read r = reads.get(i);
                  try {
                    long read = readAsANode(r);
                    if (read < 0) {
                      misses.incrementAndGet();
                    } else {
                      bytes.addAndGet(read);
                    }
                  } catch (DiskTier.BusyException e) {
                    misses.incrementAndGet();
                  }
                }
              }));
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("a tier read thread failed", e);
      }
    }
    return new Result(reads.size(), misses.get(), bytes.get(), System.nanoTime() - start);
  }

  /** The bytes of a record read and checked as a node serves it, or -1 for a miss. */
  private static long readAsANode(Read r) throws DiskTier.BusyException {
    if (r.tier().sizeOf(r.id()) >= ReadServing.MIN_FILE_REPLY_BYTES) {
      try (DiskTier.Checked c = r.tier().check(r.id(), () -> {})) {
        return c == null ? -1 : c.length();
      }
    }
    try (DiskTier.Staged s = r.tier().read(r.id())) {
      return s == null ? -1 : s.value().remaining();
    }
  }

  /** Drops the cached pages of the files in some folders. */
  interface PageCacheDrop {
    void drop(Iterable<Path> folders) throws Exception;
  }
}
