package io.kvpool.nativemem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * close() racing copies, checksums and view creation must end in IllegalStateException, never a
 * crash.
 */
class SegmentConcurrencyTest {

  @Test
  void closeRacingWithUseNeverTouchesUnmappedMemory() throws InterruptedException {
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    try (NativeSegment peer = NativeSegment.allocate(1 << 20, SegmentOptions.defaults())) {
      for (int round = 0; round < 50; round++) {
        NativeSegment segment = NativeSegment.allocate(1 << 20, SegmentOptions.defaults());
        CountDownLatch started = new CountDownLatch(3);
        List<Thread> workers =
            List.of(
                worker(started, unexpected, () -> segment.copyWithin(0, 1 << 19, 1 << 19)),
                worker(started, unexpected, () -> segment.crc32c(0, 1 << 20)),
                worker(
                    started,
                    unexpected,
                    () -> {
                      segment.view(0, 1 << 20);
                      NativeSegment.copy(peer, 0, segment, 0, 1 << 20);
                      NativeCopy.copyBatch(List.of(new CopyRequest(segment, 0, peer, 0, 1 << 20)));
                    }));
        workers.forEach(Thread::start);
        started.await();
        segment.close();
        for (Thread worker : workers) {
          worker.join();
        }
      }
    }
    assertThat(unexpected).isEmpty();
  }

  private static Thread worker(
      CountDownLatch started, ConcurrentLinkedQueue<Throwable> unexpected, Runnable action) {
    return new Thread(
        () -> {
          started.countDown();
          try {
            while (true) {
              action.run();
            }
          } catch (IllegalStateException expected) {
            // the segment was closed: the only acceptable way out
          } catch (Throwable t) {
            unexpected.add(t);
          }
        });
  }
}
