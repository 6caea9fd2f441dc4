package io.kvpool.bench.ramp;

import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * Puts of fresh keys from several client threads sharing one {@link KvPoolClient}: put {@code i} is
 * due {@code i / rate} seconds after the start (0: as fast as the pool takes them), until {@code
 * limit} puts were started or {@link #stop} is called. Each thread puts from its own direct buffer,
 * so the values never pass through the Java heap.
 */
final class PacedPuts implements AutoCloseable {
  private final KvPoolClient client;
  private final String prefix;
  private final int replicas;
  private final int rate;
  private final long limit;
  private final AtomicLong next = new AtomicLong();
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicReference<String> firstFailure = new AtomicReference<>();
  private final AtomicBoolean stopped = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private long startNanos;

  private PacedPuts(KvPoolClient client, String prefix, int replicas, int rate, long limit) {
    this.client = client;
    this.prefix = prefix;
    this.replicas = replicas;
    this.rate = rate;
    this.limit = limit;
  }

  /** Starts {@code clients} threads putting values of {@code valueSize} bytes. */
  static PacedPuts start(
      KvPoolClient client,
      String prefix,
      int clients,
      int valueSize,
      int replicas,
      int rate,
      long limit) {
    PacedPuts puts = new PacedPuts(client, prefix, replicas, rate, limit);
    puts.startNanos = System.nanoTime();
    for (int c = 0; c < clients; c++) {
      ByteBuffer value = ByteBuffer.allocateDirect(valueSize);
      for (int i = 0; i < valueSize; i++) {
        value.put(i, (byte) (31 * c + i));
      }
      Thread t = new Thread(() -> puts.run(value), "ramp-" + prefix + "-" + c);
      t.start();
      puts.threads.add(t);
    }
    return puts;
  }

  private void run(ByteBuffer value) {
    while (!stopped.get()) {
      long i = next.getAndIncrement();
      if (i >= limit) {
        return;
      }
      if (rate > 0) {
        // pacing, not synchronisation: put i waits for its slot on the schedule
        long due = startNanos + i * 1_000_000_000L / rate;
        for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
          if (stopped.get()) {
            return;
          }
          LockSupport.parkNanos(Math.min(wait, 50_000_000L));
        }
      }
      value.putInt(0, (int) i); // every value differs a little
      try {
        client.put(prefix + "-" + i, value, replicas);
        acknowledged.incrementAndGet();
      } catch (RuntimeException e) {
        failed.incrementAndGet();
        firstFailure.compareAndSet(null, prefix + "-" + i + ": " + e);
      }
    }
  }

  /** Stops starting new puts. */
  void stop() {
    stopped.set(true);
  }

  /** Waits until every thread finished its put in flight. */
  void await() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
  }

  long acknowledged() {
    return acknowledged.get();
  }

  long failed() {
    return failed.get();
  }

  /** The first failed put and why, or null. */
  String firstFailure() {
    return firstFailure.get();
  }

  @Override
  public void close() throws InterruptedException {
    stop();
    await();
  }
}
