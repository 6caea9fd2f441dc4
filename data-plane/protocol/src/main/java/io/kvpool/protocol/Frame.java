package io.kvpool.protocol;

import java.nio.ByteBuffer;

/**
 * A decoded frame: header plus its control body (value payload bytes, if any, are still on the
 * socket).
 */
public record Frame(FrameHeader header, ByteBuffer body) {
  public Opcode opcode() {
    return Opcode.fromCode(header.opcode());
  }

  public BodyReader reader() {
    return new BodyReader(body.duplicate());
  }
}
