package io.kvpool.nativemem;

import java.util.Objects;

/**
 * One copy of a {@link NativeCopy#copyBatch batch}: {@code length} bytes from {@code src} at {@code
 * srcOffset} to {@code dst} at {@code dstOffset}.
 */
public record CopyRequest(
    NativeSegment dst, long dstOffset, NativeSegment src, long srcOffset, long length) {
  public CopyRequest {
    Objects.requireNonNull(dst, "destination segment");
    Objects.requireNonNull(src, "source segment");
  }
}
