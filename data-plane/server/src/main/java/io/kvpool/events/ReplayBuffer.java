package io.kvpool.events;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The latest published batches, bounded by count and by bytes, oldest dropped first. Publisher
 * thread only.
 */
final class ReplayBuffer {
  record Batch(long seq, byte[] payload) {}

  private final int maxBatches;
  private final long maxBytes;
  private final ArrayDeque<Batch> batches = new ArrayDeque<>();
  private long bytes;

  ReplayBuffer(int maxBatches, long maxBytes) {
    this.maxBatches = maxBatches;
    this.maxBytes = maxBytes;
  }

  void add(long seq, byte[] payload) {
    batches.addLast(new Batch(seq, payload));
    bytes += payload.length;
    while (batches.size() > 1 && (batches.size() > maxBatches || bytes > maxBytes)) {
      bytes -= batches.removeFirst().payload().length;
    }
  }

  void clear() {
    batches.clear();
    bytes = 0;
  }

  /**
   * Whether every batch from {@code seq} on is still here (true too when {@code seq} is past the
   * newest).
   */
  boolean covers(long seq) {
    return !batches.isEmpty() && seq >= batches.peekFirst().seq();
  }

  List<Batch> from(long seq) {
    List<Batch> out = new ArrayList<>();
    for (Batch b : batches) {
      if (b.seq() >= seq) {
        out.add(b);
      }
    }
    return out;
  }

  int size() {
    return batches.size();
  }

  long bytes() {
    return bytes;
  }
}
