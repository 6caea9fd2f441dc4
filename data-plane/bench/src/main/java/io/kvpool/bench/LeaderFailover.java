package io.kvpool.bench;

import io.kvpool.cli.LocalPool;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One leader failover of a {@link LocalPool} with elected masters, measured as a client sees it:
 * kill -9 of the serving leader, then, in parallel and both from the kill, the first put that
 * succeeds (one client) and every stored object read back intact (another client). Used by {@code
 * kvpool bench failover} and the master failover integration test. Times are wall-clock on this
 * machine; callers print them and assert only generous bounds.
 */
public final class LeaderFailover {
  private static final long PUT_RETRY_PAUSE_MILLIS = 20;

  /**
   * What one failover took: the master killed and the one that leads afterwards, kill → first
   * successful put (and how many put calls failed before it), and kill → every object read back.
   */
  public record Outcome(
      int killedMaster,
      int newLeader,
      Duration toFirstPut,
      int failedPuts,
      String lastPutError,
      StoredObjects.ReadBack readBack) {}

  private LeaderFailover() {}

  /**
   * Kills the serving leader with SIGKILL and measures; {@code afterKill} runs right after the kill
   * (e.g. to kill a storage node as well). The killed master is not restarted. Throws {@link
   * BenchmarkFailedException} when no put succeeds within {@code timeout}.
   */
  public static Outcome killLeader(
      LocalPool pool,
      KvPoolClient writer,
      KvPoolClient reader,
      StoredObjects objects,
      int replicas,
      Duration timeout,
      Runnable afterKill) {
    LocalPool.MasterProcess leader = pool.awaitServingLeader(timeout);
    ByteBuffer value =
        StoredObjects.randomValue(objects.valueSize(), new SplittableRandom(System.nanoTime()));
    ExecutorService threads =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "failover-measurement");
              t.setDaemon(true);
              return t;
            });
    try {
      long killedAt = System.nanoTime();
      leader.process().kill();
      afterKill.run();
      String key = "failover/put-after-kill/" + killedAt;
      CompletableFuture<PutOutcome> put =
          CompletableFuture.supplyAsync(
              () -> firstPut(writer, key, value, replicas, killedAt, timeout), threads);
      CompletableFuture<StoredObjects.ReadBack> read =
          CompletableFuture.supplyAsync(() -> objects.readAll(reader, killedAt, timeout), threads);
      PutOutcome putOutcome = await(put, timeout);
      StoredObjects.ReadBack readBack = await(read, timeout);
      int newLeader = pool.awaitServingLeader(timeout).index();
      return new Outcome(
          leader.index(),
          newLeader,
          putOutcome.elapsed(),
          putOutcome.failures(),
          putOutcome.lastError(),
          readBack);
    } finally {
      threads.shutdownNow();
    }
  }

  private record PutOutcome(Duration elapsed, int failures, String lastError) {}

  /**
   * Puts {@code key} until a put succeeds; the client itself already follows the leader within its
   * timeout.
   */
  private static PutOutcome firstPut(
      KvPoolClient client,
      String key,
      ByteBuffer value,
      int replicas,
      long killedAt,
      Duration timeout) {
    int failures = 0;
    String lastError = null;
    while (true) {
      try {
        client.put(key, value.duplicate(), replicas);
        return new PutOutcome(Duration.ofNanos(System.nanoTime() - killedAt), failures, lastError);
      } catch (KvPoolException e) {
        failures++;
        lastError = e.getMessage();
        if (System.nanoTime() - killedAt > timeout.toNanos()) {
          throw new BenchmarkFailedException(
              "no put succeeded within "
                  + timeout.toSeconds()
                  + " s of the leader's "
                  + "kill ("
                  + failures
                  + " failed, the last with: "
                  + lastError
                  + ")",
              e);
        }
        StoredObjects.pause(PUT_RETRY_PAUSE_MILLIS);
      }
    }
  }

  private static <T> T await(CompletableFuture<T> future, Duration timeout) {
    try {
      // the task has its own deadline from the kill; this one only guards against a hang in the
      // client
      return future.get(timeout.toMillis() * 2, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new BenchmarkFailedException(
          "failover measurement failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new BenchmarkFailedException(
          "failover measurement still running "
              + 2 * timeout.toSeconds()
              + " s after the kill: a client call hangs",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted during the failover measurement", e);
    }
  }
}
