package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Four times the pool's capacity written through it: eviction keeps usage under the high watermark,
 * every put succeeds, and neither a pinned object nor one under a read lease is evicted.
 */
class MemoryPressureIT {

  private static final double HIGH_WATERMARK = 0.80;
  private static final int VALUE = 1 << 20;

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.storageNodes(2)
                  .memoryPerNode("64MiB")
                  .leaseTtl("120s")
                  .masterOption("--high-watermark", Double.toString(HIGH_WATERMARK))
                  .masterOption("--evict-ratio", "0.10"));

  @Test
  void evictionKeepsUsageUnderTheWatermarkAndSparesPinnedAndLeasedObjects() {
    KvPoolClient client = pool.newClient("it-pressure");
    SplittableRandom random = new SplittableRandom(5);
    ByteBuffer pinned = Values.random(VALUE, random);
    ByteBuffer leased = Values.random(VALUE, random);
    client.put("it/pressure/pinned", pinned, 2);
    client.pin("it/pressure/pinned", true);
    client.put("it/pressure/leased", leased, 1);
    // a reader holding the replica list holds a read lease (120 s here, longer than this test)
    assertThat(ReplicaCounts.query(pool.pool().leaderAddress(), "", List.of("it/pressure/leased")))
        .containsEntry("it/pressure/leased", 1);

    long capacity = pool.masterAdmin().status().path("capacityBytes").asLong();
    int puts = (int) (4 * capacity / VALUE);
    long limit = (long) (HIGH_WATERMARK * capacity);
    long maxSeenUsed = 0;
    ByteBuffer value = ByteBuffer.allocateDirect(VALUE);
    for (int i = 0; i < puts; i++) {
      client.put("it/pressure/" + i, Values.fill(value, VALUE, random), 1);
      if (i % 8 == 7) {
        JsonNode status = pool.masterAdmin().status();
        long used = status.path("usedBytes").asLong();
        maxSeenUsed = Math.max(maxSeenUsed, used);
        assertThat(used)
            .as("used bytes after %d puts of 1 MiB into %d bytes of capacity", i + 1, capacity)
            .isLessThanOrEqualTo(limit);
      }
    }

    JsonNode status = pool.masterAdmin().status();
    System.out.printf(
        "memory pressure: %d puts of 1 MiB into %d MiB, max used seen %d MiB, evictions %d%n",
        puts,
        capacity >> 20,
        maxSeenUsed >> 20,
        status.path("counters").path("evictions").asLong());
    assertThat(status.path("counters").path("evictions").asLong()).isPositive();
    assertThat(status.path("objectCount").asLong()).isLessThan(puts);
    assertThat(Values.crc(client.get("it/pressure/pinned"))).isEqualTo(Values.crc(pinned));
    assertThat(Values.crc(client.get("it/pressure/leased"))).isEqualTo(Values.crc(leased));
    assertThat(client.exists("it/pressure/" + (puts - 1))).as("the newest value").isTrue();
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }
}
