package io.kvpool.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ReplyCollectorsTest {
  private static final long WAIT_SECONDS = 60;

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
        throw new AssertionError("not released within " + WAIT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void theOtherTasksRunOnOtherThreadsWhileTheCallerRunsTheFirst() {
    try (ReplyCollectors collectors = new ReplyCollectors()) {
      CountDownLatch secondStarted = new CountDownLatch(1);
      AtomicReference<Thread> second = new AtomicReference<>();
      // the first task returns only once the second has started: run one after the other, they
      // would never end
      collectors.runAll(
          List.of(
              () -> await(secondStarted),
              () -> {
                second.set(Thread.currentThread());
                secondStarted.countDown();
              }));
      assertThat(second.get()).isNotSameAs(Thread.currentThread());
      assertThat(second.get().getName()).isEqualTo("kvpool-reply-collector");
      assertThat(second.get().isDaemon()).isTrue();
    }
  }

  @Test
  void aFailureIsRethrownOnlyOnceEveryTaskHasEnded() {
    try (ReplyCollectors collectors = new ReplyCollectors()) {
      CountDownLatch firstFailing = new CountDownLatch(1);
      AtomicBoolean secondEnded = new AtomicBoolean();
      assertThatThrownBy(
              () ->
                  collectors.runAll(
                      List.of(
                          () -> {
                            firstFailing.countDown();
                            throw new IllegalStateException("first");
                          },
                          () -> {
                            await(firstFailing);
                            secondEnded.set(true);
                          })))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("first");
      assertThat(secondEnded).isTrue();
      assertThatThrownBy(
              () ->
                  collectors.runAll(
                      List.of(
                          () -> {},
                          () -> {
                            throw new IllegalArgumentException("second");
                          })))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("second");
    }
  }

  @Test
  void whenEveryThreadIsBusyTheCallerRunsTheTaskItself() throws Exception {
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try (ReplyCollectors collectors = new ReplyCollectors(1)) {
      CountDownLatch busy = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Future<?> occupying =
          caller.submit(
              () ->
                  collectors.runAll(
                      List.of(
                          () -> {},
                          () -> {
                            busy.countDown();
                            await(release);
                          })));
      await(busy);
      AtomicReference<Thread> ranOn = new AtomicReference<>();
      collectors.runAll(List.of(() -> {}, () -> ranOn.set(Thread.currentThread())));
      assertThat(ranOn.get()).isSameAs(Thread.currentThread());
      release.countDown();
      occupying.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } finally {
      caller.shutdownNow();
    }
  }

  @Test
  void afterCloseEveryTaskStillRunsOnTheCaller() {
    ReplyCollectors collectors = new ReplyCollectors();
    collectors.close();
    AtomicReference<Thread> ranOn = new AtomicReference<>();
    collectors.runAll(List.of(() -> {}, () -> ranOn.set(Thread.currentThread())));
    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
  }

  @Test
  void anInterruptedCallerStillWaitsForEveryTaskAndKeepsItsInterrupt() {
    try (ReplyCollectors collectors = new ReplyCollectors()) {
      CountDownLatch interrupted = new CountDownLatch(1);
      AtomicBoolean secondEnded = new AtomicBoolean();
      collectors.runAll(
          List.of(
              () -> {
                Thread.currentThread().interrupt();
                interrupted.countDown();
              },
              () -> {
                await(interrupted);
                secondEnded.set(true);
              }));
      assertThat(secondEnded).isTrue();
      assertThat(Thread.interrupted())
          .as("the caller's interrupt kept (and cleared here)")
          .isTrue();
    }
  }
}
