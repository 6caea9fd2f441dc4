package io.kvpool.storage;

import io.kvpool.protocol.InventoryObject;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Slice;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The inventory a storage node writes next to its memory files when it stops, so that the next
 * process on the same node can adopt the replicas still in those files (a warm restart). Format
 * {@value #FORMAT} (big-endian):
 *
 * <pre>
 * magic u32 "KVPI", format u16,
 * writer release string, node id string, pool id string, written-at i64 (epoch ms),
 * segments i32, each: size i64 (bytes of its memory file),
 * objects i32, each: key string, generation i64, wanted replicas u8, value size i32, crc32c i32,
 *                    slices i32, each: segment i32, offset i64, length i32, value offset i32,
 * tombstones i32, each: key string, generation i64, at i64 (epoch ms),
 * crc32c i32 of every byte before it.
 * </pre>
 *
 * Strings are u16 length + UTF-8. A file of another format, cut short or with a wrong checksum is
 * never adopted: the node then starts empty. A reader refuses a format it does not know; a release
 * that changes the layout raises {@link #FORMAT}, and the operator then drains such nodes instead
 * of restarting them warm. The replicas' block metadata (protocol 2.5) is in a file of its own next
 * to this one ({@link BlockMetadataFile}), so that this format stays readable by releases before
 * it.
 */
public final class InventoryFile {
  /** The layout version this release writes and reads. */
  public static final int FORMAT = 1;

  static final int MAGIC = 0x4B565049; // "KVPI"
  static final String NAME = "inventory.kvi";

  private InventoryFile() {}

  /** A tombstone with the time it was made (local epoch ms), so its age survives the restart. */
  public record SavedTombstone(String key, long generation, long atMillis) {}

  /** What a file holds. */
  public record Contents(
      String release,
      String nodeId,
      String poolId,
      long writtenAtMillis,
      List<Long> segmentSizes,
      List<InventoryObject> objects,
      List<SavedTombstone> tombstones) {
    public Contents {
      segmentSizes = List.copyOf(segmentSizes);
      objects = List.copyOf(objects);
      tombstones = List.copyOf(tombstones);
    }
  }

  /** Why a file cannot be adopted; the message says what was found and what was expected. */
  public static final class UnreadableException extends Exception {
    UnreadableException(String message) {
      super(message);
    }
  }

  /**
   * Writes {@code contents} to {@code file} through a temporary file and a rename: never half a
   * file.
   */
  public static void write(Path file, Contents contents) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    CRC32C crc = new CRC32C();
    try (OutputStream raw = Files.newOutputStream(tmp);
        CheckedOutputStream checked =
            new CheckedOutputStream(new BufferedOutputStream(raw, 1 << 16), crc);
        DataOutputStream out = new DataOutputStream(checked)) {
      out.writeInt(MAGIC);
      out.writeShort(FORMAT);
      string(out, contents.release());
      string(out, contents.nodeId());
      string(out, contents.poolId());
      out.writeLong(contents.writtenAtMillis());
      out.writeInt(contents.segmentSizes().size());
      for (long size : contents.segmentSizes()) {
        out.writeLong(size);
      }
      out.writeInt(contents.objects().size());
      for (InventoryObject o : contents.objects()) {
        string(out, o.key());
        out.writeLong(o.generation());
        out.writeByte(o.wantedReplicas());
        out.writeInt(o.size());
        out.writeInt(o.checksum());
        out.writeInt(o.slices().size());
        for (Slice s : o.slices()) {
          out.writeInt(s.segmentId());
          out.writeLong(s.offset());
          out.writeInt(s.length());
          out.writeInt(s.valueOffset());
        }
      }
      out.writeInt(contents.tombstones().size());
      for (SavedTombstone t : contents.tombstones()) {
        string(out, t.key());
        out.writeLong(t.generation());
        out.writeLong(t.atMillis());
      }
      out.flush();
      // the trailer is not part of what it checks
      new DataOutputStream(raw).writeInt((int) crc.getValue());
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    BlockMetadataFile.write(metadataFile(file), contents.objects());
  }

  /**
   * Where the block metadata of the replicas {@code file} lists is kept ({@link
   * BlockMetadataFile}).
   */
  static Path metadataFile(Path file) {
    return file.resolveSibling(BlockMetadataFile.NAME);
  }

  /** Reads and checks a file: magic, format, bounds of every count, and the trailing checksum. */
  public static Contents read(Path file) throws IOException, UnreadableException {
    long length = Files.size(file);
    Contents contents;
    CRC32C crc = new CRC32C();
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
        DataInputStream in =
            new DataInputStream(new CheckedInputStream(new Bounded(raw, length - 4), crc))) {
      try {
        int magic = in.readInt();
        if (magic != MAGIC) {
          throw new UnreadableException(
              "not a kvpool inventory (magic 0x" + Integer.toHexString(magic) + ")");
        }
        int format = in.readUnsignedShort();
        if (format != FORMAT) {
          throw new UnreadableException(
              "inventory format "
                  + format
                  + " is not format "
                  + FORMAT
                  + " that this release reads");
        }
        String release = string(in);
        String nodeId = string(in);
        String poolId = string(in);
        long writtenAt = in.readLong();
        int segmentCount = count(in, 1024, "segments");
        List<Long> sizes = new ArrayList<>(segmentCount);
        for (int i = 0; i < segmentCount; i++) {
          sizes.add(in.readLong());
        }
        int objectCount = count(in, Integer.MAX_VALUE, "objects");
        List<InventoryObject> objects = new ArrayList<>(Math.min(objectCount, 1 << 16));
        for (int i = 0; i < objectCount; i++) {
          String key = string(in);
          long generation = in.readLong();
          int wanted = in.readUnsignedByte();
          int size = in.readInt();
          int checksum = in.readInt();
          int sliceCount = count(in, ProtocolLimits.MAX_SLICES, "slices of " + key);
          List<Slice> slices = new ArrayList<>(sliceCount);
          for (int s = 0; s < sliceCount; s++) {
            slices.add(new Slice(in.readInt(), in.readLong(), in.readInt(), in.readInt()));
          }
          objects.add(new InventoryObject(key, generation, wanted, size, checksum, slices));
        }
        int tombstoneCount = count(in, Integer.MAX_VALUE, "tombstones");
        List<SavedTombstone> tombstones = new ArrayList<>(Math.min(tombstoneCount, 1 << 16));
        for (int i = 0; i < tombstoneCount; i++) {
          tombstones.add(new SavedTombstone(string(in), in.readLong(), in.readLong()));
        }
        if (in.read() != -1) {
          throw new UnreadableException("inventory has bytes after its last tombstone");
        }
        contents = new Contents(release, nodeId, poolId, writtenAt, sizes, objects, tombstones);
      } catch (EOFException e) {
        throw new UnreadableException("inventory is cut short (" + length + " bytes)");
      }
      int expected = trailer(raw);
      if (expected != (int) crc.getValue()) {
        throw new UnreadableException(
            "inventory checksum mismatch (stored 0x"
                + Integer.toHexString(expected)
                + ", computed 0x"
                + Integer.toHexString((int) crc.getValue())
                + ")");
      }
    }
    return new Contents(
        contents.release(),
        contents.nodeId(),
        contents.poolId(),
        contents.writtenAtMillis(),
        contents.segmentSizes(),
        BlockMetadataFile.attach(metadataFile(file), contents.objects()),
        contents.tombstones());
  }

  private static int trailer(InputStream raw) throws IOException, UnreadableException {
    byte[] b = raw.readNBytes(4);
    if (b.length != 4) {
      throw new UnreadableException("inventory is cut short: no checksum");
    }
    return ((b[0] & 0xff) << 24) | ((b[1] & 0xff) << 16) | ((b[2] & 0xff) << 8) | (b[3] & 0xff);
  }

  private static int count(DataInputStream in, int max, String what)
      throws IOException, UnreadableException {
    int n = in.readInt();
    if (n < 0 || n > max) {
      throw new UnreadableException("inventory lists " + n + " " + what + " (at most " + max + ")");
    }
    return n;
  }

  private static void string(DataOutputStream out, String s) throws IOException {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xffff) {
      throw new IOException("string of " + bytes.length + " bytes cannot be written");
    }
    out.writeShort(bytes.length);
    out.write(bytes);
  }

  private static String string(DataInputStream in) throws IOException {
    byte[] bytes = new byte[in.readUnsignedShort()];
    in.readFully(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /**
   * Reads at most {@code limit} bytes of {@code in}, so the trailer stays outside the checked
   * stream.
   */
  private static final class Bounded extends InputStream {
    private final InputStream in;
    private long left;

    Bounded(InputStream in, long limit) {
      this.in = in;
      this.left = Math.max(0, limit);
    }

    @Override
    public int read() throws IOException {
      if (left <= 0) {
        return -1;
      }
      int b = in.read();
      if (b >= 0) {
        left--;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }

    @Override
    public void close() {
      // the caller closes the underlying stream
    }
  }
}
