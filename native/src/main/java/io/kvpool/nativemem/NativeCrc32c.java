package io.kvpool.nativemem;

import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.zip.Checksum;

/**
 * A {@link Checksum} computing CRC32C in libkvpool ({@link Crc32c#update}), with the same values as
 * {@link java.util.zip.CRC32C}. On a CPU with VPCLMULQDQ it is the faster of the two for runs of
 * kilobytes and more; each update is one native call, so feed it runs, not single bytes.
 */
public final class NativeCrc32c implements Checksum {
  private int crc;

  @Override
  public void update(int b) {
    update(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void update(byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    crc = Crc32c.update(crc, ByteBuffer.wrap(b, off, len));
  }

  /**
   * Takes position..limit and, as {@link Checksum#update(ByteBuffer)} says, moves the position to
   * the limit.
   */
  @Override
  public void update(ByteBuffer buffer) {
    crc = Crc32c.update(crc, buffer);
    buffer.position(buffer.limit());
  }

  @Override
  public long getValue() {
    return Integer.toUnsignedLong(crc);
  }

  @Override
  public void reset() {
    crc = 0;
  }
}
