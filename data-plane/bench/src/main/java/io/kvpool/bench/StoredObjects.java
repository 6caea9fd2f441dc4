package io.kvpool.bench;

import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * Objects stored for a failover measurement, by key with the CRC32C of each value, so that every
 * value read back is checked byte for byte (on top of the client's own checksum check). Used by
 * {@code kvpool bench failover} and the master failover integration test.
 */
public final class StoredObjects {
  private static final int PUT_BATCH = 500;
  private static final int GET_BATCH = 1000;

  /**
   * Pause between read passes while some objects are not readable yet (a new leader still
   * recovering).
   */
  private static final long RETRY_PAUSE_MILLIS = 50;

  private final Map<String, Long> checksums;
  private final int valueSize;

  private StoredObjects(Map<String, Long> checksums, int valueSize) {
    this.checksums = checksums;
    this.valueSize = valueSize;
  }

  /**
   * Stores {@code count} values of {@code valueSize} random bytes (seeded) with {@code replicas}
   * copies under {@code prefix0..prefixN-1}, in batches; a key whose batch put failed is put again
   * on its own, and fails the fill if that fails too.
   */
  public static StoredObjects fill(
      KvPoolClient client, String prefix, int count, int valueSize, int replicas, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Long> checksums = new LinkedHashMap<>();
    for (int from = 0; from < count; from += PUT_BATCH) {
      Map<String, ByteBuffer> batch = new LinkedHashMap<>();
      for (int i = from; i < Math.min(count, from + PUT_BATCH); i++) {
        ByteBuffer value = randomValue(valueSize, random);
        batch.put(prefix + i, value);
        checksums.put(prefix + i, crc(value));
      }
      // a batch that raced a leader change can fail items with a retryable error (e.g.
      // GRANT_REJECTED): the
      // single-key put retries those, and a key that fails there fails the fill
      for (String key : client.putBatch(batch, replicas).failures().keySet()) {
        try {
          client.put(key, batch.get(key), replicas);
        } catch (KvPoolException e) {
          throw new BenchmarkFailedException(
              "storing " + count + " objects failed at " + key + ": " + e.getMessage(), e);
        }
      }
    }
    return new StoredObjects(checksums, valueSize);
  }

  public int size() {
    return checksums.size();
  }

  public int valueSize() {
    return valueSize;
  }

  public List<String> keys() {
    return List.copyOf(checksums.keySet());
  }

  /** CRC32C of the value stored under {@code key}. */
  public long checksum(String key) {
    Long crc = checksums.get(key);
    if (crc == null) {
      throw new IllegalArgumentException("key " + key + " is not one of these objects");
    }
    return crc;
  }

  /**
   * The outcome of reading every object back: {@code elapsed} from the given start until the last
   * object came back intact (when {@link #complete()}); objects still unreadable at the deadline
   * and objects that came back with other bytes; failed read calls on the way (e.g. while a new
   * leader recovered) and the last of their errors.
   */
  public record ReadBack(
      Duration elapsed,
      int verified,
      List<String> unreadable,
      List<String> corrupt,
      int failedCalls,
      String lastError) {
    public boolean complete() {
      return unreadable.isEmpty() && corrupt.isEmpty();
    }
  }

  /**
   * Reads every object, in batches, again and again for those not readable yet, until each came
   * back once with its stored bytes or {@code timeout} after {@code startNanos} passed. A value
   * with other bytes is not retried.
   */
  public ReadBack readAll(KvPoolClient client, long startNanos, Duration timeout) {
    long deadline = startNanos + timeout.toNanos();
    List<String> pending = keys();
    List<String> corrupt = new ArrayList<>();
    int verified = 0;
    int failedCalls = 0;
    String lastError = null;
    long lastVerified = System.nanoTime();
    while (true) {
      List<String> notYet = new ArrayList<>();
      for (int from = 0; from < pending.size(); from += GET_BATCH) {
        List<String> batch = pending.subList(from, Math.min(pending.size(), from + GET_BATCH));
        Map<String, ByteBuffer> values;
        try {
          values = client.getBatch(batch);
        } catch (KvPoolException e) {
          failedCalls++;
          lastError = e.getMessage();
          notYet.addAll(batch);
          continue;
        }
        int before = verified;
        for (String key : batch) {
          ByteBuffer value = values.get(key);
          if (value == null) {
            notYet.add(key);
          } else if (crc(value) != checksums.get(key)) {
            corrupt.add(key);
          } else {
            verified++;
          }
        }
        if (verified > before) {
          lastVerified = System.nanoTime();
        }
      }
      pending = notYet;
      if (pending.isEmpty() || System.nanoTime() - deadline > 0) {
        return new ReadBack(
            Duration.ofNanos(lastVerified - startNanos),
            verified,
            List.copyOf(pending),
            List.copyOf(corrupt),
            failedCalls,
            lastError);
      }
      pause(RETRY_PAUSE_MILLIS);
    }
  }

  static ByteBuffer randomValue(int size, SplittableRandom random) {
    ByteBuffer value = ByteBuffer.allocateDirect(size);
    while (value.remaining() >= 8) {
      value.putLong(random.nextLong());
    }
    while (value.hasRemaining()) {
      value.put((byte) random.nextInt());
    }
    return value.flip();
  }

  static long crc(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return crc.getValue();
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted", e);
    }
  }
}
