package io.kvpool.protocol;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Strict big-endian decoder for control bodies: every read is bounds-checked and trailing bytes are
 * an error.
 */
public final class BodyReader {
  /** Decodes one element of a list. */
  @FunctionalInterface
  public interface ElementDecoder<T> {
    T decode(BodyReader r) throws ProtocolException;
  }

  private final ByteBuffer in;

  public BodyReader(ByteBuffer in) {
    this.in = in;
  }

  private void need(int n, String what) throws ProtocolException {
    if (in.remaining() < n) {
      throw new ProtocolException(
          "truncated body: " + what + " needs " + n + " bytes, " + in.remaining() + " left");
    }
  }

  public int u8() throws ProtocolException {
    need(1, "u8");
    return in.get() & 0xff;
  }

  public boolean bool() throws ProtocolException {
    int v = u8();
    if (v > 1) {
      throw new ProtocolException("boolean field is " + v + ", expected 0 or 1");
    }
    return v == 1;
  }

  public int u16() throws ProtocolException {
    need(2, "u16");
    return in.getShort() & 0xffff;
  }

  public int i32() throws ProtocolException {
    need(4, "i32");
    return in.getInt();
  }

  public long i64() throws ProtocolException {
    need(8, "i64");
    return in.getLong();
  }

  /** A non-negative i64 no larger than {@code max}. */
  public long length(long max, String what) throws ProtocolException {
    long v = i64();
    if (v < 0 || v > max) {
      throw new ProtocolException(what + " " + v + " outside 0.." + max);
    }
    return v;
  }

  /** A non-negative i32 no larger than {@code max}. */
  public int index(int max, String what) throws ProtocolException {
    int v = i32();
    if (v < 0 || v > max) {
      throw new ProtocolException(what + " " + v + " outside 0.." + max);
    }
    return v;
  }

  public String string(int maxBytes, String what) throws ProtocolException {
    int n = u16();
    if (n > maxBytes) {
      throw new ProtocolException(what + " of " + n + " bytes exceeds the limit of " + maxBytes);
    }
    need(n, what);
    ByteBuffer slice = in.slice();
    slice.limit(n);
    in.position(in.position() + n);
    try {
      CharBuffer chars =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(slice);
      return chars.toString();
    } catch (CharacterCodingException e) {
      throw new ProtocolException(what + " is not valid UTF-8");
    }
  }

  public String key() throws ProtocolException {
    String key = string(ProtocolLimits.MAX_KEY_BYTES, "key");
    if (key.isEmpty()) {
      throw new ProtocolException("key is empty");
    }
    return key;
  }

  /**
   * A key field decoded without the key rule (any UTF-8 string a u16 length allows), for batch
   * items whose violation is answered per item with LIMIT_EXCEEDED rather than by closing the
   * connection.
   */
  public String anyKey() throws ProtocolException {
    return string(0xffff, "key");
  }

  public String text() throws ProtocolException {
    return string(ProtocolLimits.MAX_TEXT_BYTES, "text");
  }

  public byte[] bytes(int maxBytes, String what) throws ProtocolException {
    int n = u16();
    if (n > maxBytes) {
      throw new ProtocolException(what + " of " + n + " bytes exceeds the limit of " + maxBytes);
    }
    need(n, what);
    byte[] b = new byte[n];
    try {
      in.get(b);
    } catch (BufferUnderflowException e) {
      throw new ProtocolException("truncated " + what);
    }
    return b;
  }

  /**
   * u32 count then elements. {@code minElementBytes} lets a forged count be refused before anything
   * is allocated.
   */
  public <T> List<T> list(int maxCount, int minElementBytes, ElementDecoder<T> decoder)
      throws ProtocolException {
    int n = i32();
    if (n < 0 || n > maxCount) {
      throw new ProtocolException("list of " + n + " entries outside 0.." + maxCount);
    }
    if ((long) n * minElementBytes > in.remaining()) {
      throw new ProtocolException(
          "list of " + n + " entries cannot fit in the " + in.remaining() + " bytes left");
    }
    List<T> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(decoder.decode(this));
    }
    return out;
  }

  /** Call after the last field: extra bytes mean the peer and we disagree on the layout. */
  public void finish() throws ProtocolException {
    if (in.hasRemaining()) {
      throw new ProtocolException("body has " + in.remaining() + " unexpected trailing bytes");
    }
  }
}
