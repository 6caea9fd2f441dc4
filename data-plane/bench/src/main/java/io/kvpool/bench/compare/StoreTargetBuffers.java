package io.kvpool.bench.compare;

import java.nio.ByteBuffer;

/**
 * The client-side buffers of targets that are not stores (a value to send, a buffer to receive
 * into).
 */
final class StoreTargetBuffers {
  private static final ByteBuffer[] CLIENT = new ByteBuffer[8];

  private StoreTargetBuffers() {}

  static synchronized ByteBuffer client(int c, int size) {
    if (CLIENT[c] == null || CLIENT[c].capacity() < size) {
      CLIENT[c] = ByteBuffer.allocateDirect(Math.max(size, StoreTarget.BUFFER_BYTES));
    }
    return CLIENT[c].duplicate();
  }
}
