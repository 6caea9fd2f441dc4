package io.kvpool.protocol;

import java.nio.ByteBuffer;

/**
 * The fixed 24-byte big-endian frame header: magic u32, protocol major u8, protocol minor u8,
 * opcode u16, flags u16, reserved u16, request id u64, body length u32.
 */
public record FrameHeader(
    int protocolMajor, int protocolMinor, int opcode, int flags, long requestId, int bodyLength) {
  public static final int MAGIC = 0x4B565031; // "KVP1"
  public static final int FLAG_RESPONSE = 1;
  public static final int FLAG_ERROR = 2;
  private static final int KNOWN_FLAGS = FLAG_RESPONSE | FLAG_ERROR;

  public boolean isResponse() {
    return (flags & FLAG_RESPONSE) != 0;
  }

  public boolean isError() {
    return (flags & FLAG_ERROR) != 0;
  }

  public void encode(ByteBuffer out) {
    out.putInt(MAGIC)
        .put((byte) protocolMajor)
        .put((byte) protocolMinor)
        .putShort((short) opcode)
        .putShort((short) flags)
        .putShort((short) 0)
        .putLong(requestId)
        .putInt(bodyLength);
  }

  /** Strict decode of exactly {@link ProtocolLimits#HEADER_BYTES} bytes. */
  public static FrameHeader decode(ByteBuffer in) throws ProtocolException {
    if (in.remaining() < ProtocolLimits.HEADER_BYTES) {
      throw new ProtocolException(
          "truncated header: " + in.remaining() + " of " + ProtocolLimits.HEADER_BYTES + " bytes");
    }
    int magic = in.getInt();
    if (magic != MAGIC) {
      throw new ProtocolException(
          String.format("bad magic 0x%08x (expected 0x%08x): not a kvpool peer", magic, MAGIC));
    }
    int major = in.get() & 0xff;
    int minor = in.get() & 0xff;
    int opcode = in.getShort() & 0xffff;
    int flags = in.getShort() & 0xffff;
    int reserved = in.getShort() & 0xffff;
    long requestId = in.getLong();
    long bodyLength = in.getInt() & 0xffffffffL;
    if ((flags & ~KNOWN_FLAGS) != 0) {
      throw new ProtocolException("unknown header flags 0x" + Integer.toHexString(flags));
    }
    if (reserved != 0) {
      throw new ProtocolException("reserved header field is " + reserved + ", expected 0");
    }
    if (bodyLength > ProtocolLimits.MAX_BODY_BYTES) {
      throw new ProtocolException(
          "frame body of "
              + bodyLength
              + " bytes exceeds the limit of "
              + ProtocolLimits.MAX_BODY_BYTES);
    }
    return new FrameHeader(major, minor, opcode, flags, requestId, (int) bodyLength);
  }
}
