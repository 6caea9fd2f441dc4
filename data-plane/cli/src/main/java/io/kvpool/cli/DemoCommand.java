package io.kvpool.cli;

import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.ObjectNotFoundException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.zip.CRC32C;
import picocli.CommandLine.Command;

/**
 * {@code kvpool demo}: the product on one machine. Starts a master and three storage nodes as
 * separate processes, stores a few hundred KV-cache-sized values with two replicas, reads them back
 * byte-exact (one by one and in a batch), looks up some keys that were never stored, prints the
 * pool's status and stops every process.
 */
@Command(
    name = "demo",
    description = "Start a local pool, run a verified put/get workload, print its status, stop.")
final class DemoCommand implements Callable<Integer> {

  private static final int VALUES = 200;
  private static final int MISSING_LOOKUPS = 50;
  private static final int BATCH = 32;
  private static final int MIN_VALUE = 64 << 10;
  private static final int MAX_VALUE = 4 << 20;
  private static final int REPLICAS = 2;

  private final PrintStream out;

  DemoCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() {
    LocalPoolConfig config =
        LocalPool.builder().poolId("demo").storageNodes(3).memoryPerNode("256MiB").build();
    out.println(
        "kvpool demo: starting 1 master + 3 storage nodes (256 MiB each) as separate processes");
    out.println("logs: " + config.logDir());
    try (LocalPool pool = config.start()) {
      ProcessTable.print(pool, out);
      out.println();
      try (KvPoolClient client =
          KvPoolClient.connect(
              ClientConfig.builder()
                  .master(pool.masterAddress())
                  .clientId("kvpool-demo")
                  .timeout(Duration.ofSeconds(30))
                  .build())) {
        runWorkload(client, out);
      }
      out.println();
      out.print(StatusTable.render(new AdminApi(pool.adminAddress()).masterStatus()));
      out.println();
      out.println("stopping the pool's processes");
    }
    out.println("demo finished: all values read back byte-exact");
    return 0;
  }

  private static void runWorkload(KvPoolClient client, PrintStream out) {
    SplittableRandom random = new SplittableRandom(2024);
    List<String> keys = new ArrayList<>();
    long[] checksums = new long[VALUES];
    long totalBytes = 0;
    long putNanos = 0;
    for (int i = 0; i < VALUES; i++) {
      // log-uniform sizes: most blocks small, a few large, as KV-cache blocks of mixed sequence
      // lengths
      int size =
          (int)
              Math.round(MIN_VALUE * Math.pow((double) MAX_VALUE / MIN_VALUE, random.nextDouble()));
      ByteBuffer value = randomValue(size, random);
      checksums[i] = crc(value);
      String key = "demo/layer" + (i % 32) + "/prefix-" + Long.toHexString(random.nextLong());
      keys.add(key);
      long t0 = System.nanoTime();
      client.put(key, value, REPLICAS);
      putNanos += System.nanoTime() - t0;
      totalBytes += size;
    }
    out.printf(
        Locale.ROOT,
        "put   %d values of 64 KiB..4 MiB (%s, replicas=%d), one client thread, in %.2f s: "
            + "%.3f GB/s, %.0f ops/s%n",
        VALUES,
        StatusTable.bytes(totalBytes),
        REPLICAS,
        putNanos / 1e9,
        totalBytes / (double) putNanos,
        VALUES * 1e9 / putNanos);

    long getNanos = 0;
    for (int i = 0; i < VALUES; i++) {
      long t0 = System.nanoTime();
      ByteBuffer value = client.get(keys.get(i));
      getNanos += System.nanoTime() - t0;
      verify(keys.get(i), value, checksums[i]);
    }
    out.printf(
        Locale.ROOT,
        "get   %d values, every byte verified, in %.2f s: %.3f GB/s, %.0f ops/s%n",
        VALUES,
        getNanos / 1e9,
        totalBytes / (double) getNanos,
        VALUES * 1e9 / getNanos);

    long t0 = System.nanoTime();
    Map<String, ByteBuffer> batch = client.getBatch(keys.subList(0, BATCH));
    long batchNanos = System.nanoTime() - t0;
    for (int i = 0; i < BATCH; i++) {
      ByteBuffer value = batch.get(keys.get(i));
      if (value == null) {
        throw new DemoFailedException(
            "batch get lost key " + keys.get(i) + " that was stored a moment ago");
      }
      verify(keys.get(i), value, checksums[i]);
    }
    out.printf(
        Locale.ROOT,
        "batch get of %d keys in one call, verified, in %.1f ms%n",
        BATCH,
        batchNanos / 1e6);

    int hits = VALUES;
    for (int i = 0; i < MISSING_LOOKUPS; i++) {
      try {
        client.get("demo/never-stored/" + i);
        hits++;
      } catch (ObjectNotFoundException expected) {
        // a prefix the cache has never seen: the miss an inference engine would recompute
      }
    }
    int lookups = VALUES + MISSING_LOOKUPS;
    out.printf(
        Locale.ROOT,
        "lookups %d (%d never stored): hit ratio %.2f%n",
        lookups,
        MISSING_LOOKUPS,
        hits / (double) lookups);
  }

  private static ByteBuffer randomValue(int size, SplittableRandom random) {
    ByteBuffer value = ByteBuffer.allocateDirect(size);
    while (value.remaining() >= 8) {
      value.putLong(random.nextLong());
    }
    while (value.hasRemaining()) {
      value.put((byte) random.nextInt());
    }
    return value.flip();
  }

  private static long crc(ByteBuffer value) {
    CRC32C crc = new CRC32C();
    crc.update(value.duplicate());
    return crc.getValue();
  }

  private static void verify(String key, ByteBuffer value, long expectedCrc) {
    if (crc(value) != expectedCrc) {
      throw new DemoFailedException(
          "value of "
              + key
              + " came back different from what was stored ("
              + value.remaining()
              + " bytes)");
    }
  }

  /** The pool returned wrong or missing data: the demo must fail loudly, not print a success. */
  static final class DemoFailedException extends RuntimeException {
    DemoFailedException(String message) {
      super(message);
    }
  }
}
