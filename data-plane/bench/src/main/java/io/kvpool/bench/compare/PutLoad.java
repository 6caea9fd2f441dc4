package io.kvpool.bench.compare;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
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
 * The events workload's traffic on one pool: N client threads putting values of one size under new
 * keys for a given time (or until a number of puts), one {@link KvPoolClient} each.
 */
final class PutLoad implements AutoCloseable {
  private final String name;
  private final int valueBytes;
  private final KvPoolClient[] clients;
  private final ExecutorService threads;

  /** What one phase measured: puts acknowledged and failed, over its length. */
  record Phase(long puts, long failures, long nanos) {
    double opsPerSecond() {
      return nanos == 0 ? 0 : puts * 1e9 / nanos;
    }
  }

  PutLoad(String master, String name, int valueBytes, int clientCount) {
    this.name = name;
    this.valueBytes = valueBytes;
    this.clients = new KvPoolClient[clientCount];
    for (int c = 0; c < clientCount; c++) {
      clients[c] =
          KvPoolClient.connect(
              ClientConfig.builder()
                  .master(master)
                  .clientId("events-" + name + "-" + c)
                  .timeout(Duration.ofSeconds(30))
                  .build());
    }
    this.threads = Executors.newFixedThreadPool(clientCount);
  }

  String name() {
    return name;
  }

  /**
   * Puts values under {@code prefix + n} (R=1) from every client thread until {@code seconds} have
   * passed or {@code maxPuts} were made.
   */
  Phase put(String prefix, double seconds, long maxPuts) throws InterruptedException {
    AtomicLong issued = new AtomicLong();
    AtomicLong puts = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    long start = System.nanoTime();
    long end = start + (long) (seconds * 1e9);
    List<Future<?>> running = new ArrayList<>();
    for (KvPoolClient client : clients) {
      running.add(
          threads.submit(
              () -> {
                ByteBuffer value = ByteBuffer.allocateDirect(valueBytes);
                long n;
                while (System.nanoTime() < end && (n = issued.getAndIncrement()) < maxPuts) {
                  value.clear().putLong(0, n);
                  try {
                    client.put(prefix + n, value, 1);
                    puts.incrementAndGet();
                  } catch (KvPoolException e) {
                    failures.incrementAndGet();
                  }
                }
              }));
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("a client thread of the events workload failed", e);
      }
    }
    return new Phase(puts.get(), failures.get(), System.nanoTime() - start);
  }

  /** Objects the master holds now. */
  long objects() {
    return clients[0].stats().objects();
  }

  /** Removes every object (between phases, not measured). */
  void removeAll() {
    clients[0].removeAll();
  }

  @Override
  public void close() {
    threads.shutdownNow();
    for (KvPoolClient c : clients) {
      c.close();
    }
  }
}
