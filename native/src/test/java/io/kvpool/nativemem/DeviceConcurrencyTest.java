package io.kvpool.nativemem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Closing a backend or buffer while other threads copy must end in IllegalStateException, never a
 * crash.
 */
class DeviceConcurrencyTest {

  @Test
  void closeRacingWithCopiesNeverTouchesFreedMemory() throws InterruptedException {
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    try (NativeSegment host = NativeSegment.allocate(1 << 20, SegmentOptions.defaults())) {
      for (int round = 0; round < 40; round++) {
        DeviceBackend backend = DeviceBackend.open(round % 2 == 0 ? "host" : "ascend");
        DeviceBuffer shared = backend.allocate(1 << 20);
        DeviceBuffer closedEarly = backend.allocate(1 << 20);
        CountDownLatch started = new CountDownLatch(3);
        List<Thread> workers =
            List.of(
                worker(
                    started, unexpected, () -> backend.copyToDevice(shared, 0, host, 0, 1 << 20)),
                worker(started, unexpected, () -> backend.copyToHost(host, 0, shared, 0, 1 << 20)),
                worker(
                    started,
                    unexpected,
                    () -> backend.copyToDevice(closedEarly, 0, host, 0, 1 << 20)));
        workers.forEach(Thread::start);
        started.await();
        closedEarly.close();
        Thread.sleep(1);
        backend.close();
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
            // the buffer or the backend was closed: the only acceptable way out
          } catch (Throwable t) {
            unexpected.add(t);
          }
        });
  }
}
