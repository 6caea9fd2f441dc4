package io.kvpool.storage;

import io.kvpool.admin.StorageStatus;
import io.kvpool.nativemem.NativeMemoryException;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.nativemem.SegmentOptions;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.Slice;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A storage node's segments as memory files in a node-local folder ({@code <memory dir>/<node
 * id>/segment-N.mem} on tmpfs or hugetlbfs) that outlives the process, and the warm restart they
 * allow: a node that stops cleanly writes its inventory next to them ({@link InventoryFile}); the
 * next process of the same node id on the same machine maps the same files, checks the inventory
 * (format, node, segment sizes, trailing checksum) and the CRC32C of every replica it lists, and
 * adopts the replicas that verify, so it re-registers with them and no byte is copied. The
 * inventory is deleted as soon as it is read: after a crash the files hold bytes no inventory
 * describes, and the next process starts empty. A node that stops holding nothing (drained) removes
 * its files and returns the memory.
 */
final class MemoryFiles {
  private static final Logger LOG = LoggerFactory.getLogger(MemoryFiles.class);

  private final Path folder;

  private MemoryFiles(Path folder) {
    this.folder = folder;
  }

  /** The folder of node {@code nodeId} under {@code memoryDir}, created when missing. */
  static MemoryFiles of(Path memoryDir, String nodeId) throws IOException {
    if (nodeId.contains("/") || nodeId.equals(".") || nodeId.equals("..")) {
      throw new IOException("node id '" + nodeId + "' cannot name a folder of memory files");
    }
    Path folder = memoryDir.resolve(nodeId);
    try {
      Files.createDirectories(folder);
    } catch (IOException e) {
      throw new IOException(
          "cannot create the memory folder "
              + folder
              + " (it must be writable by this process,"
              + " e.g. a node folder on tmpfs such as /dev/shm/kvpool): "
              + e.getMessage(),
          e);
    }
    return new MemoryFiles(folder);
  }

  Path folder() {
    return folder;
  }

  /**
   * The segments mapped from the files, and the inventory a previous process left for them (or why
   * there is none).
   */
  record Opened(
      List<NativeSegment> segments, InventoryFile.Contents inventory, String coldReason) {}

  /**
   * Maps {@code count} segment files of {@code perSegment} bytes each and reads (then deletes) the
   * inventory. The inventory is offered for adoption only when it is for this node and these
   * segment sizes and every file kept its bytes; otherwise {@code coldReason} says why the node
   * starts empty.
   */
  Opened open(String nodeId, int count, long perSegment, SegmentOptions options)
      throws IOException {
    Path inventoryFile = folder.resolve(InventoryFile.NAME);
    InventoryFile.Contents inventory = null;
    String reason = null;
    if (Files.exists(inventoryFile)) {
      try {
        inventory = InventoryFile.read(inventoryFile);
      } catch (InventoryFile.UnreadableException e) {
        reason = e.getMessage();
      } finally {
        // consumed: once the segments change, these records no longer describe them
        Files.deleteIfExists(inventoryFile);
        Files.deleteIfExists(InventoryFile.metadataFile(inventoryFile));
      }
    } else {
      reason =
          anySegmentFile()
              ? "no inventory next to the memory files (the previous process did not stop"
                  + " cleanly)"
              : "no memory files yet";
    }
    List<NativeSegment> segments = new ArrayList<>();
    try {
      for (int i = 0; i < count; i++) {
        segments.add(NativeSegment.mapFile(segmentFile(i), perSegment, options));
      }
    } catch (NativeMemoryException e) {
      segments.forEach(NativeSegment::close);
      throw new IOException(e.getMessage(), e);
    }
    if (inventory != null) {
      reason = mismatch(inventory, nodeId, segments);
      if (reason != null) {
        inventory = null;
      }
    }
    return new Opened(segments, inventory, reason);
  }

  private static String mismatch(
      InventoryFile.Contents inventory, String nodeId, List<NativeSegment> segments) {
    if (!inventory.nodeId().equals(nodeId)) {
      return "the inventory is of node " + inventory.nodeId() + ", not " + nodeId;
    }
    List<Long> sizes = segments.stream().map(NativeSegment::size).toList();
    if (!inventory.segmentSizes().equals(sizes)) {
      return "the inventory describes segments of "
          + inventory.segmentSizes()
          + " bytes, this node maps "
          + sizes;
    }
    for (NativeSegment s : segments) {
      if (!s.keptFile()) {
        return "memory file " + s.file().getFileName() + " did not keep its bytes";
      }
    }
    return null;
  }

  /**
   * Adopts into {@code inventory} every replica of {@code saved} whose slices lie in the segments,
   * cover its value exactly and whose bytes match its CRC32C; restores the saved tombstones.
   */
  static StorageStatus.WarmStart adopt(
      InventoryFile.Contents saved, List<NativeSegment> segments, ObjectInventory inventory) {
    long t0 = System.nanoTime();
    long adopted = 0;
    long bytes = 0;
    long rejected = 0;
    String firstRejection = null;
    for (InventoryObject o : saved.objects()) {
      String problem = verify(o, segments);
      if (problem == null) {
        problem = inventory.adopt(o);
      }
      if (problem == null) {
        adopted++;
        bytes += o.size();
      } else {
        rejected++;
        if (firstRejection == null) {
          firstRejection = o.key() + " generation " + o.generation() + ": " + problem;
        }
      }
    }
    for (InventoryFile.SavedTombstone t : saved.tombstones()) {
      inventory.restoreTombstone(t.key(), t.generation(), t.atMillis());
    }
    long millis = (System.nanoTime() - t0) / 1_000_000;
    String message =
        "adopted "
            + adopted
            + " replicas ("
            + bytes
            + " bytes) left by release "
            + saved.release()
            + ", verified in "
            + millis
            + " ms"
            + (rejected == 0 ? "" : "; " + rejected + " refused, first: " + firstRejection);
    LOG.info(
        "event=warm_start adopted={} bytes={} refused={} verify_ms={} written_by={}",
        adopted,
        bytes,
        rejected,
        millis,
        saved.release());
    return new StorageStatus.WarmStart(true, true, adopted, bytes, rejected, message);
  }

  /**
   * Null when the replica's bytes are in the segments and match its checksum, else what is wrong.
   */
  private static String verify(InventoryObject o, List<NativeSegment> segments) {
    List<Slice> slices = new ArrayList<>(o.slices());
    slices.sort(Comparator.comparingInt(Slice::valueOffset));
    long covered = 0;
    for (Slice s : slices) {
      if (s.segmentId() < 0 || s.segmentId() >= segments.size()) {
        return "segment " + s.segmentId() + " does not exist";
      }
      long size = segments.get(s.segmentId()).size();
      if (s.offset() < 0 || s.length() <= 0 || s.offset() > size - s.length()) {
        return "slice [" + s.offset() + ", " + s.end() + ") lies outside segment " + s.segmentId();
      }
      if (s.valueOffset() != covered) {
        return "slices do not cover the value contiguously";
      }
      covered += s.length();
    }
    if (covered != o.size()) {
      return "slices cover " + covered + " of " + o.size() + " bytes";
    }
    CRC32C crc = new CRC32C();
    for (Slice s : slices) {
      crc.update(segments.get(s.segmentId()).view(s.offset(), s.length()));
    }
    return (int) crc.getValue() == o.checksum() ? null : "checksum mismatch";
  }

  /**
   * Records what the segments hold for the next process (after every request using them has
   * finished).
   */
  void save(InventoryFile.Contents contents) throws IOException {
    InventoryFile.write(folder.resolve(InventoryFile.NAME), contents);
  }

  /** Removes the memory files and any inventory: nothing in them is worth keeping. */
  void discard() throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      for (Path f : files.toList()) {
        Files.deleteIfExists(f);
      }
    }
    Files.deleteIfExists(folder);
  }

  private boolean anySegmentFile() throws IOException {
    try (Stream<Path> files = Files.list(folder)) {
      return files.anyMatch(f -> f.getFileName().toString().startsWith("segment-"));
    }
  }

  private Path segmentFile(int index) {
    return folder.resolve("segment-" + index + ".mem");
  }
}
