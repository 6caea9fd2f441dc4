package io.kvpool.bench.compare;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.client.ObjectNotFoundException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The disk-3x workload's traffic on one pool: values of one size under numbered keys, put and read
 * back by N client threads (thread t takes the keys whose number is t modulo N, in order). Each
 * value starts with its key's number, so a get that returns another value's bytes is counted as
 * wrong, never as a hit.
 */
final class TierWorkload implements AutoCloseable {
  private final String prefix;
  private final int valueBytes;
  private final KvPoolClient[] clients;
  private final ExecutorService threads;

  /** What one pass measured; {@code bytes} are those of the values stored or read back. */
  record Pass(long hits, long misses, long wrong, long failures, long bytes, long nanos) {
    double gigabytesPerSecond() {
      return nanos == 0 ? 0 : bytes / (double) nanos;
    }

    double hitRatio() {
      long gets = hits + misses + wrong + failures;
      return gets == 0 ? 0 : hits / (double) gets;
    }
  }

  TierWorkload(String master, String prefix, int valueBytes, int clientCount) {
    this.prefix = prefix;
    this.valueBytes = valueBytes;
    this.clients = new KvPoolClient[clientCount];
    for (int c = 0; c < clientCount; c++) {
      clients[c] =
          KvPoolClient.connect(
              ClientConfig.builder()
                  .master(master)
                  .clientId(prefix + "-" + c)
                  .timeout(Duration.ofSeconds(30))
                  .build());
    }
    this.threads = Executors.newFixedThreadPool(clientCount);
  }

  /**
   * Puts keys {@code from} (inclusive) to {@code to} (exclusive) with R=1, with {@code clientCount}
   * of the threads.
   */
  Pass put(long from, long to, int clientCount) throws InterruptedException {
    return run(
        from,
        to,
        clientCount,
        (client, value, i, tally) -> {
          value.clear().putLong(0, i);
          try {
            client.put(prefix + i, value, 1);
            tally.hits.incrementAndGet();
            tally.bytes.addAndGet(valueBytes);
          } catch (KvPoolException e) {
            tally.failures.incrementAndGet();
          }
        });
  }

  /** Gets keys {@code from} to {@code to} with {@code clientCount} of the threads. */
  Pass get(long from, long to, int clientCount) throws InterruptedException {
    return run(
        from,
        to,
        clientCount,
        (client, value, i, tally) -> {
          value.clear();
          try {
            int n = client.get(prefix + i, value);
            if (n == valueBytes && value.getLong(0) == i) {
              tally.hits.incrementAndGet();
              tally.bytes.addAndGet(n);
            } else {
              tally.wrong.incrementAndGet();
            }
          } catch (ObjectNotFoundException e) {
            tally.misses.incrementAndGet();
          } catch (KvPoolException e) {
            tally.failures.incrementAndGet();
          }
        });
  }

  private interface Step {
    void apply(KvPoolClient client, ByteBuffer value, long index, Tally tally);
  }

  private static final class Tally {
    final AtomicLong hits = new AtomicLong();
    final AtomicLong misses = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    final AtomicLong bytes = new AtomicLong();
  }

  private Pass run(long from, long to, int clientCount, Step step) throws InterruptedException {
    Tally tally = new Tally();
    List<Future<?>> running = new ArrayList<>();
    long start = System.nanoTime();
    for (int c = 0; c < clientCount; c++) {
      int me = c;
      running.add(
          threads.submit(
              () -> {
                ByteBuffer value = ByteBuffer.allocateDirect(valueBytes);
                for (long i = from + me; i < to; i += clientCount) {
                  step.apply(clients[me], value, i, tally);
                }
              }));
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("a client thread of the disk-3x workload failed", e);
      }
    }
    return new Pass(
        tally.hits.get(),
        tally.misses.get(),
        tally.wrong.get(),
        tally.failures.get(),
        tally.bytes.get(),
        System.nanoTime() - start);
  }

  @Override
  public void close() {
    threads.shutdownNow();
    for (KvPoolClient c : clients) {
      c.close();
    }
  }
}
