package io.kvpool.e2e.workload;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.KvPoolException;
import io.kvpool.client.NoSpaceException;
import io.kvpool.client.ObjectNotFoundException;
import io.kvpool.protocol.ErrorCode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The client of the end-to-end suite. It runs in a pod of the data-plane image (the suite ships
 * this class in a ConfigMap and runs {@code java -cp '/opt/kvpool/lib/*:/opt/e2e/workload.jar'}),
 * reads the pool's address from the pool's client ConfigMap ({@code envFrom}: {@code
 * KVPOOL_MASTER_ADDRESS}, {@code KVPOOL_POOL_ID}) and either puts deterministic values, reads them
 * back and compares every byte, or removes them.
 *
 * <pre>PoolWorkload put|verify|remove --keys N --prefix P [--from F] [--replicas R] [--seed S]
 * </pre>
 *
 * <p>The keys are {@code P-F} to {@code P-(F+N-1)} ({@code --from} 0 unless given). {@code remove}
 * counts a key {@code ok} when it was removed, {@code missing} when the pool did not hold it.
 *
 * <p>Value {@code i} is 1 to 32 KiB of pseudo-random bytes derived from the seed and {@code i}, so
 * a later pod can check what an earlier one stored. {@code verify} only reads: it counts {@code
 * lost} objects (not found, or read back with other bytes) apart from reads that failed otherwise
 * (e.g. a timeout). The last line is {@code WORKLOAD key=value ...}, which the suite parses; the
 * exit code is 0 only when every key succeeded.
 */
public final class PoolWorkload {
  static final int MIN_SIZE = 1024;
  static final int MAX_SIZE = 32 * 1024;
  private static final int ERRORS_SHOWN = 10;

  private PoolWorkload() {}

  public static void main(String[] args) {
    Map<String, String> options = options(args);
    String op = args.length > 0 ? args[0] : "";
    int keys = Integer.parseInt(options.getOrDefault("keys", "2000"));
    int from = Integer.parseInt(options.getOrDefault("from", "0"));
    String prefix = options.getOrDefault("prefix", "e2e");
    int replicas = Integer.parseInt(options.getOrDefault("replicas", "2"));
    long seed = Long.parseLong(options.getOrDefault("seed", "1"));
    String master = System.getenv("KVPOOL_MASTER_ADDRESS");
    if (master == null || master.isBlank() || !List.of("put", "verify", "remove").contains(op)) {
      System.err.println(
          "usage: PoolWorkload put|verify|remove --keys N --prefix P [--from F] [--replicas R]"
              + " [--seed S]"
              + " (with KVPOOL_MASTER_ADDRESS from the pool's client ConfigMap)");
      System.exit(2);
    }
    long started = System.nanoTime();
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("op", op);
    summary.put("keys", keys);
    summary.put("from", from);
    List<String> errors = new ArrayList<>();
    int ok = 0;
    int missing = 0;
    int mismatched = 0;
    long bytes = 0;
    ClientConfig config =
        ClientConfig.builder()
            .master(master)
            .poolId(System.getenv().getOrDefault("KVPOOL_POOL_ID", ""))
            .poolKey(System.getenv("KVPOOL_CLIENT_KEY"))
            .clientId("e2e-workload")
            .operationTimeout(Duration.ofSeconds(60))
            .build();
    try (KvPoolClient client = KvPoolClient.connect(config)) {
      summary.put("server", client.serverVersion().toString());
      for (int i = from; i < from + keys; i++) {
        String key = key(prefix, i);
        byte[] expected = value(seed, i);
        try {
          if (op.equals("put")) {
            ByteBuffer value = ByteBuffer.allocateDirect(expected.length).put(expected).flip();
            putRetryingNoSpace(client, key, value, replicas);
            ok++;
          } else if (op.equals("remove")) {
            if (removeRetryingLeased(client, key)) {
              ok++;
            } else {
              missing++;
              note(errors, key + ": not found");
            }
          } else {
            ByteBuffer actual = client.get(key);
            byte[] read = new byte[actual.remaining()];
            actual.get(read);
            if (java.util.Arrays.equals(read, expected)) {
              ok++;
            } else {
              mismatched++;
              note(
                  errors,
                  key
                      + ": read "
                      + read.length
                      + " bytes that differ from the "
                      + expected.length
                      + " bytes put");
            }
          }
          bytes += expected.length;
        } catch (ObjectNotFoundException e) {
          missing++;
          note(errors, key + ": not found");
        } catch (RuntimeException e) {
          note(errors, key + ": " + e);
        }
      }
    } catch (RuntimeException e) {
      note(errors, "client: " + e);
    }
    summary.put("ok", ok);
    summary.put("failed", keys - ok);
    summary.put("missing", missing);
    summary.put("mismatched", mismatched);
    summary.put("lost", missing + mismatched);
    summary.put("bytes", bytes);
    summary.put("millis", (System.nanoTime() - started) / 1_000_000);
    errors.forEach(e -> System.out.println("error: " + e));
    StringBuilder line = new StringBuilder("WORKLOAD");
    summary.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
    System.out.println(line);
    System.out.flush();
    System.exit(ok == keys ? 0 : 1);
  }

  /**
   * A put that tries again, a few times, when the master found no room at that moment: in a full
   * pool every object in memory may still be a pending put (not evictable) for an instant, with or
   * without a disk tier; the next tries find the COMMITs applied. Each retry is printed.
   */
  private static void putRetryingNoSpace(
      KvPoolClient client, String key, ByteBuffer value, int replicas) {
    for (int attempt = 1; ; attempt++) {
      try {
        client.put(key, value.duplicate(), replicas);
        return;
      } catch (NoSpaceException e) {
        if (attempt == 20) {
          throw e;
        }
        System.out.println("retry: " + key + " found no room (attempt " + attempt + ")");
        try {
          Thread.sleep(100);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /**
   * A remove that asks again while the key is read-leased (a new leader leases what it recovered
   * for one lease TTL, 5 s by default), for at most 30 s.
   */
  private static boolean removeRetryingLeased(KvPoolClient client, String key) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        return client.remove(key);
      } catch (KvPoolException e) {
        if (e.code() != ErrorCode.OBJECT_LEASED || System.nanoTime() > deadline) {
          throw e;
        }
        System.out.println("retry: " + key + " is read-leased");
        try {
          Thread.sleep(200);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  static String key(String prefix, int i) {
    return prefix + "-" + String.format("%06d", i);
  }

  /** The bytes of value {@code i}: its size and content depend only on the seed and {@code i}. */
  static byte[] value(long seed, int i) {
    SplittableRandom random = new SplittableRandom(seed * 1_000_003L + i);
    byte[] value = new byte[MIN_SIZE + random.nextInt(MAX_SIZE - MIN_SIZE + 1)];
    random.nextBytes(value);
    return value;
  }

  private static void note(List<String> errors, String error) {
    if (errors.size() < ERRORS_SHOWN) {
      errors.add(error);
    }
  }

  private static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      if (!args[i].startsWith("--")) {
        throw new IllegalArgumentException("expected --name value, got " + args[i]);
      }
      options.put(args[i].substring(2), args[i + 1]);
    }
    return options;
  }
}
