package io.kvpool.storage.disk;

import io.kvpool.protocol.BlockMetadata;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ProtocolException;
import io.kvpool.protocol.ProtocolLimits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * The block metadata of one record of a tier file, in that file's side file ({@code tier-N.kvm}),
 * so that a restarted node still has it for the records it rescans. The tier file's own format
 * stays that of earlier releases: a release that does not know side files rescans its tier as
 * before and leaves them alone.
 *
 * <pre>
 * offset size field
 * 0      4    magic 0x4B564D31 ("KVM1")
 * 4      4    body length n
 * 8      n    body: the record's offset in its file i64, generation i64, the value's CRC32C i32,
 *             key (u16 length + UTF-8), BlockMetadata (as in a protocol body)
 * 8+n    4    CRC32C of bytes 0..8+n
 * </pre>
 *
 * Big-endian like the wire protocol. An entry names its record by offset, key, generation and
 * checksum: one that names no record the tier holds there (its record was torn, or the file was
 * appended to by a release without side files) gives nothing. A side file's scan ends at the first
 * entry that is torn or fails a check.
 */
record MetadataEntry(long offset, DiskTier.ObjectRef id, int checksum, BlockMetadata metadata) {
  static final int MAGIC = 0x4B564D31;
  static final int FRAME = 4 + 4 + 4;
  static final int MAX_BODY =
      8 + 8 + 4 + 2 + ProtocolLimits.MAX_KEY_BYTES + BlockMetadata.MAX_ENCODED_BYTES;

  /** The entry as it is written, checksum included. */
  ByteBuffer encode() {
    BodyWriter w = new BodyWriter(256);
    w.i32(MAGIC).i32(0).i64(offset).i64(id.generation()).i32(checksum).string(id.key());
    metadata.encode(w);
    ByteBuffer body = w.toBuffer();
    int n = body.remaining() - 8;
    ByteBuffer out = ByteBuffer.allocate(body.remaining() + 4).order(ByteOrder.BIG_ENDIAN);
    out.put(body).putInt(4, n);
    CRC32C crc = new CRC32C();
    crc.update(out.array(), 0, out.position());
    return out.putInt((int) crc.getValue()).flip();
  }

  /**
   * The entry at {@code pos} of a side file of {@code size} bytes, or null when it is torn, fails
   * its checksum, does not decode or holds metadata over a limit. {@code frame} and {@code body}
   * are buffers the caller reuses ({@link #FRAME} and {@link #MAX_BODY} + 4 bytes).
   */
  static MetadataEntry read(FileChannel ch, long pos, long size, ByteBuffer frame, ByteBuffer body)
      throws IOException {
    if (size - pos < FRAME) {
      return null;
    }
    frame.clear().limit(8);
    if (!DiskTier.readFully(ch, frame, pos) || frame.getInt(0) != MAGIC) {
      return null;
    }
    int n = frame.getInt(4);
    if (n < 1 || n > MAX_BODY || size - pos < FRAME + (long) n) {
      return null;
    }
    body.clear().limit(n + 4);
    if (!DiskTier.readFully(ch, body, pos + 8)) {
      return null;
    }
    CRC32C crc = new CRC32C();
    crc.update(frame.flip());
    crc.update(body.array(), 0, n);
    if ((int) crc.getValue() != body.getInt(n)) {
      return null;
    }
    try {
      BodyReader r = new BodyReader(ByteBuffer.wrap(body.array(), 0, n));
      long offset = r.i64();
      long generation = r.i64();
      int checksum = r.i32();
      String key = r.key();
      BlockMetadata m = BlockMetadata.decode(r);
      r.finish();
      if (m.limitProblem() != null) {
        return null;
      }
      return new MetadataEntry(offset, new DiskTier.ObjectRef(key, generation), checksum, m);
    } catch (ProtocolException e) {
      return null;
    }
  }

  /** Bytes the entry at {@code pos} took (after a successful {@link #read}). */
  static long length(ByteBuffer frame) {
    return FRAME + (long) frame.getInt(4);
  }
}
