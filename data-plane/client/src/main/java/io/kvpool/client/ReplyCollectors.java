package io.kvpool.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Threads that take in the replies of a batch's other storage nodes while the calling thread takes
 * in one node's: a batch spread over several nodes then arrives from all of them at once, where
 * taken one node after another the later nodes' replies stalled in full socket buffers. Bounded:
 * when every thread is busy, the caller takes that node's reply in itself, as it would without
 * them. Idle threads end after a while; {@link #close()} ends them all.
 */
final class ReplyCollectors implements AutoCloseable {
  /** Threads at most, across all of a client's calling threads. */
  static final int MAX_THREADS = 64;

  private final ThreadPoolExecutor threads;

  ReplyCollectors() {
    this(MAX_THREADS);
  }

  ReplyCollectors(int maxThreads) {
    threads =
        new ThreadPoolExecutor(
            0,
            maxThreads,
            30,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, "kvpool-reply-collector");
              t.setDaemon(true);
              return t;
            },
            // busy or closed: the caller runs it (never dropped, which would leave a read
            // unanswered)
            (task, executor) -> task.run());
  }

  /**
   * Runs every task, all but the first on other threads, and returns once all have ended, also when
   * one failed or this thread is interrupted: a task may be filling a caller's buffer until it
   * ends. Rethrows the first task's failure that is not an IOException's translation (those are
   * recorded by the tasks themselves).
   */
  void runAll(List<Runnable> tasks) {
    if (tasks.isEmpty()) {
      return;
    }
    List<Future<?>> others = new ArrayList<>(tasks.size() - 1);
    for (Runnable task : tasks.subList(1, tasks.size())) {
      others.add(threads.submit(task));
    }
    Throwable failure = null;
    try {
      tasks.get(0).run();
    } catch (RuntimeException | Error e) {
      failure = e;
    }
    boolean interrupted = false;
    for (Future<?> f : others) {
      while (true) {
        try {
          f.get();
          break;
        } catch (InterruptedException e) {
          interrupted = true; // wait on: the task still writes into the caller's buffers
        } catch (ExecutionException e) {
          failure = failure == null ? e.getCause() : failure;
          break;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure instanceof RuntimeException r) {
      throw r;
    }
    if (failure instanceof Error e) {
      throw e;
    }
  }

  @Override
  public void close() {
    threads.shutdown();
  }
}
