package io.kvpool.nativemem;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Batched copies between segments: one native call for many ranges. */
public final class NativeCopy {
  private NativeCopy() {}

  /**
   * Checks every request against its segments, then performs them in order in one native call (each
   * with memmove semantics). Nothing is copied when any request is out of bounds or any segment is
   * closed; the segments cannot be closed while the batch runs.
   *
   * @throws IndexOutOfBoundsException naming the first bad request
   * @throws IllegalStateException when a segment is closed
   */
  public static void copyBatch(List<CopyRequest> requests) {
    Objects.requireNonNull(requests, "copy requests");
    long[] entries = new long[Math.multiplyExact(requests.size(), 3)];
    Map<NativeSegment, Boolean> segments = new IdentityHashMap<>();
    for (int i = 0; i < requests.size(); i++) {
      CopyRequest request = Objects.requireNonNull(requests.get(i), "copy request " + i);
      Ranges.check(
          request.dstOffset(),
          request.length(),
          request.dst().size(),
          "destination segment of copy request " + i);
      Ranges.check(
          request.srcOffset(),
          request.length(),
          request.src().size(),
          "source segment of copy request " + i);
      entries[3 * i] = request.dst().address() + request.dstOffset();
      entries[3 * i + 1] = request.src().address() + request.srcOffset();
      entries[3 * i + 2] = request.length();
      segments.put(request.dst(), Boolean.TRUE);
      segments.put(request.src(), Boolean.TRUE);
    }
    if (requests.isEmpty()) {
      return;
    }
    List<NativeSegment> ordered = new ArrayList<>(segments.keySet());
    ordered.sort(Comparator.comparingLong(NativeSegment::lockOrder));
    int entered = 0;
    try {
      for (NativeSegment segment : ordered) {
        segment.enter();
        entered++;
      }
      KvpoolNative.kvpool_copy_batch(entries, requests.size());
    } finally {
      for (int i = entered - 1; i >= 0; i--) {
        ordered.get(i).exit();
      }
    }
  }
}
