package io.kvpool.storage;

import io.kvpool.nativemem.HugePageMode;
import io.kvpool.nativemem.NativeSegment;
import io.kvpool.protocol.FileRegion;
import io.kvpool.protocol.PayloadPart;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Read-only channels on the memory files that hold a node's segments, so that a reply's payload is
 * sent by the kernel from the files' pages ({@code sendfile}) instead of being copied from the
 * mapping into the socket: the copy that took 71 % of a storage node's CPU during 1 MiB gets. The
 * channels read the same pages the segments map ({@code MAP_SHARED}), so they see every write.
 */
final class SegmentFiles implements Closeable {
  private static final long PAGE = NativeSegment.pageSize();

  private final List<FileChannel> channels;

  private SegmentFiles(List<FileChannel> channels) {
    this.channels = channels;
  }

  /**
   * Channels on every segment's file; null when a segment is anonymous memory (no file) or on
   * hugetlbfs (which has no sendfile).
   */
  static SegmentFiles open(List<NativeSegment> segments) throws IOException {
    if (segments.isEmpty()
        || segments.stream()
            .anyMatch(s -> s.file() == null || s.hugePages() == HugePageMode.EXPLICIT)) {
      return null;
    }
    List<FileChannel> channels = new ArrayList<>(segments.size());
    try {
      for (NativeSegment s : segments) {
        channels.add(FileChannel.open(s.file(), StandardOpenOption.READ));
      }
    } catch (IOException | RuntimeException e) {
      closeAll(channels);
      throw e;
    }
    return new SegmentFiles(channels);
  }

  /**
   * The parts of a reply that sends bytes {@code [offset, offset + length)} of a segment: the pages
   * that lie wholly inside the range from the file, the bytes of pages it shares with neighbours
   * copied from {@code view}. A page the kernel may still hold for a socket is thus only ever one
   * of the object's own; when the object goes, the inventory gives those pages new ones ({@link
   * NativeSegment#replacePages}), so that bytes queued for a slow reader never change.
   */
  void addParts(int segmentId, long offset, int length, ByteBuffer view, List<PayloadPart> parts) {
    long end = offset + length;
    long first = (offset + PAGE - 1) / PAGE * PAGE;
    long last = end / PAGE * PAGE;
    if (last <= first) {
      parts.add(new PayloadPart.Bytes(view));
      return;
    }
    if (first > offset) {
      parts.add(new PayloadPart.Bytes(view.slice(0, (int) (first - offset))));
    }
    parts.add(new FileRegion(channels.get(segmentId), first, last - first));
    if (end > last) {
      parts.add(new PayloadPart.Bytes(view.slice((int) (last - offset), (int) (end - last))));
    }
  }

  @Override
  public void close() {
    closeAll(channels);
  }

  private static void closeAll(List<FileChannel> channels) {
    for (FileChannel c : channels) {
      try {
        c.close();
      } catch (IOException e) {
        // read-only: nothing is lost by a failed close
      }
    }
  }
}
