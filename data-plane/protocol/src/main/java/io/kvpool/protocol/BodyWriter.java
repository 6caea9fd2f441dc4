package io.kvpool.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.function.BiConsumer;

/** Big-endian encoder for control bodies; grows as needed. */
public final class BodyWriter {
  private ByteBuffer buf;

  public BodyWriter() {
    this(256);
  }

  public BodyWriter(int initialCapacity) {
    buf = ByteBuffer.allocate(initialCapacity);
  }

  private void ensure(int n) {
    if (buf.remaining() < n) {
      int capacity = Math.max(buf.capacity() * 2, buf.position() + n);
      ByteBuffer bigger = ByteBuffer.allocate(capacity);
      buf.flip();
      bigger.put(buf);
      buf = bigger;
    }
  }

  public BodyWriter u8(int v) {
    ensure(1);
    buf.put((byte) v);
    return this;
  }

  public BodyWriter bool(boolean v) {
    return u8(v ? 1 : 0);
  }

  public BodyWriter u16(int v) {
    ensure(2);
    buf.putShort((short) v);
    return this;
  }

  public BodyWriter i32(int v) {
    ensure(4);
    buf.putInt(v);
    return this;
  }

  public BodyWriter i64(long v) {
    ensure(8);
    buf.putLong(v);
    return this;
  }

  /** u16 length + UTF-8 bytes. */
  public BodyWriter string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    if (b.length > 0xffff) {
      throw new IllegalArgumentException(
          "string of " + b.length + " bytes does not fit a u16 length");
    }
    return bytes(b);
  }

  /** u16 length + raw bytes. */
  public BodyWriter bytes(byte[] b) {
    ensure(2 + b.length);
    buf.putShort((short) b.length);
    buf.put(b);
    return this;
  }

  /** u32 count + elements. */
  public <T> BodyWriter list(Collection<T> items, BiConsumer<BodyWriter, T> element) {
    i32(items.size());
    for (T item : items) {
      element.accept(this, item);
    }
    return this;
  }

  /** The encoded body, ready to write (position 0). */
  public ByteBuffer toBuffer() {
    ByteBuffer out = buf.duplicate();
    out.flip();
    return out;
  }
}
