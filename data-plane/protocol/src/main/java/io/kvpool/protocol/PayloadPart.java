package io.kvpool.protocol;

import java.nio.ByteBuffer;

/**
 * A piece of a reply payload written by {@link FrameChannel#writeFromFiles}: bytes copied into the
 * socket, or a {@link FileRegion} the kernel sends from the file's pages.
 */
public sealed interface PayloadPart permits PayloadPart.Bytes, FileRegion {
  long length();

  /** Bytes (position..limit) copied into the socket. */
  record Bytes(ByteBuffer buffer) implements PayloadPart {
    @Override
    public long length() {
      return buffer.remaining();
    }
  }
}
