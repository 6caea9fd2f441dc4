package io.kvpool.storage;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ProtocolLimits;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The block metadata of the replicas an {@link InventoryFile} lists, kept in a file of its own next
 * to it ({@value #NAME}) so that the inventory's format, which decides whether an upgrade may
 * restart a node warm, stays the same: a release without this file reads the inventory and ignores
 * it. Layout (big-endian): magic u32 "KVPM", format u16 ({@value #FORMAT}), then as a protocol body
 * list&lt;key string, generation i64, BlockMetadata&gt; (PROTOCOL.md, "Block metadata"), then the
 * crc32c i32 of every byte before it. A file that is missing, cut short, of another format, with a
 * wrong checksum or metadata over a limit, with more entries than the inventory has objects, or
 * larger than those objects' metadata can be ({@link #maxBytes}) gives no metadata: the replicas
 * are adopted without it, and the restart stays warm.
 */
final class BlockMetadataFile {
  private static final Logger LOG = LoggerFactory.getLogger(BlockMetadataFile.class);
  static final String NAME = "blockmeta.kvm";
  static final int FORMAT = 1;
  private static final int MAGIC = 0x4B56504D; // "KVPM"

  /**
   * The largest entry a node writes: a key of {@link ProtocolLimits#MAX_KEY_BYTES}, its generation
   * and metadata at every limit of PROTOCOL.md ("Block metadata"; a node keeps none over them).
   */
  static final int MAX_ENTRY_BYTES =
      2 + ProtocolLimits.MAX_KEY_BYTES + 8 + BlockMetadata.MAX_ENCODED_BYTES;

  /** Magic, format, entry count and checksum. */
  private static final int FRAME_BYTES = 4 + 2 + 4 + 4;

  /**
   * The share of the heap the file's bytes may take at most: decoding takes about as much again. A
   * node whose metadata passed it (it held that much in its heap before it stopped) restarts warm
   * without its metadata.
   */
  private static final int HEAP_SHARE = 4;

  /** Smallest entry: a one-byte key, a generation and the smallest metadata. */
  private static final int ENTRY_MIN_BYTES = 3 + 8 + 19;

  private record Entry(String key, long generation, BlockMetadata metadata) {}

  private BlockMetadataFile() {}

  /** Writes the metadata of {@code objects} (those that have some) through a temporary file. */
  static void write(Path file, List<InventoryObject> objects) throws IOException {
    List<InventoryObject> with = objects.stream().filter(o -> o.metadata() != null).toList();
    if (with.isEmpty()) {
      Files.deleteIfExists(file);
      return;
    }
    BodyWriter w = new BodyWriter(64 + with.size() * 256);
    w.i32(MAGIC).u16(FORMAT);
    w.list(
        with,
        (b, o) -> {
          b.string(o.key()).i64(o.generation());
          o.metadata().encode(b);
        });
    ByteBuffer body = w.toBuffer();
    CRC32C crc = new CRC32C();
    crc.update(body.duplicate());
    ByteBuffer all = ByteBuffer.allocate(body.remaining() + 4);
    all.put(body).putInt((int) crc.getValue()).flip();
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, all.array());
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * {@code objects} with the metadata {@code file} holds for them attached; unchanged (and why
   * logged) when the file is missing or unreadable.
   */
  static List<InventoryObject> attach(Path file, List<InventoryObject> objects) throws IOException {
    if (!Files.exists(file)) {
      return objects;
    }
    List<String> problem = new ArrayList<>(1);
    List<InventoryObject> out = read(file, objects, problem);
    if (!problem.isEmpty()) {
      LOG.warn(
          "event=block_metadata_unreadable file={} reason=\"{}\" (replicas adopted without it)",
          file,
          problem.get(0));
    }
    return out;
  }

  /**
   * The most bytes a file for {@code objects} inventory objects can legitimately hold (one entry of
   * the largest size per object), and never more than 1/{@value #HEAP_SHARE} of {@code maxHeap}
   * (nor than an array holds): a file beyond it is not read.
   */
  static long maxBytes(int objects, long maxHeap) {
    long legitimate = FRAME_BYTES + (long) objects * MAX_ENTRY_BYTES;
    return Math.min(legitimate, Math.min(maxHeap / HEAP_SHARE, Integer.MAX_VALUE - 8));
  }

  private static List<InventoryObject> read(
      Path file, List<InventoryObject> objects, List<String> problem) throws IOException {
    long bound = maxBytes(objects.size(), Runtime.getRuntime().maxMemory());
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes((int) bound + 1); // the file may have grown since it was listed
    }
    if (bytes.length > bound) {
      problem.add(
          "block metadata file of more than "
              + bound
              + " bytes, the most "
              + objects.size()
              + " inventory objects can have (or 1/"
              + HEAP_SHARE
              + " of the heap)");
      return objects;
    }
    if (bytes.length < 10) {
      problem.add("block metadata file of " + bytes.length + " bytes");
      return objects;
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    if (in.getInt(bytes.length - 4) != (int) crc.getValue()) {
      problem.add("block metadata file checksum mismatch");
      return objects;
    }
    Map<String, BlockMetadata> byObject = new HashMap<>();
    try {
      BodyReader r = new BodyReader(in.limit(bytes.length - 4));
      if (r.i32() != MAGIC || r.u16() != FORMAT) {
        problem.add("not a block metadata file of format " + FORMAT);
        return objects;
      }
      List<Entry> entries =
          r.list(
              objects.size(), // one entry per inventory object at most
              ENTRY_MIN_BYTES,
              x -> new Entry(x.key(), x.i64(), BlockMetadata.decode(x)));
      r.finish();
      for (Entry e : entries) {
        String limit = e.metadata().limitProblem();
        if (limit != null) {
          problem.add("block metadata of " + e.key() + ": " + limit);
          return objects;
        }
        byObject.put(e.key() + "\0" + e.generation(), e.metadata());
      }
    } catch (ProtocolException e) {
      problem.add("block metadata file: " + e.getMessage());
      return objects;
    }
    List<InventoryObject> out = new ArrayList<>(objects.size());
    for (InventoryObject o : objects) {
      BlockMetadata m = byObject.get(o.key() + "\0" + o.generation());
      out.add(m == null ? o : o.withMetadata(m));
    }
    return out;
  }
}
