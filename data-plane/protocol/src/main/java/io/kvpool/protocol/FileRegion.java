package io.kvpool.protocol;

import java.nio.channels.FileChannel;

/**
 * Bytes {@code [position, position + length)} of a file, for a reply payload that the kernel sends
 * from the file's pages to the socket ({@link FrameChannel#writeFromFiles}) instead of copying them
 * in.
 */
public record FileRegion(FileChannel file, long position, long length) implements PayloadPart {
  public FileRegion {
    if (position < 0 || length < 0) {
      throw new IllegalArgumentException(
          "file region at " + position + " of " + length + " bytes must not be negative");
    }
  }
}
