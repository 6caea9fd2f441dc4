package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvpool.client.BatchResult;
import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 2,000 values of 1 B – 4 MiB with two replicas through single and batch calls, read back
 * byte-exact.
 */
class RoundTripIT {

  private static final int VALUES = 2000;
  private static final int MAX_VALUE = 4 << 20;
  private static final int REPLICAS = 2;
  private static final int BATCH = 50;

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(b -> b.storageNodes(3).memoryPerNode("512MiB"));

  @Test
  void everyValueComesBackByteExactFromSingleAndBatchCalls() {
    KvPoolClient client = pool.newClient("it-roundtrip");
    SplittableRandom random = new SplittableRandom(20_260_401);
    List<String> keys = new ArrayList<>();
    long[] checksums = new long[VALUES];
    int[] sizes = new int[VALUES];
    for (int i = 0; i < VALUES; i++) {
      keys.add("it/roundtrip/" + i + "/" + Long.toHexString(random.nextLong()));
      sizes[i] = i == 0 ? 1 : i == 1 ? MAX_VALUE : Values.skewedSize(random);
    }

    ByteBuffer scratch = ByteBuffer.allocateDirect(MAX_VALUE);
    long totalBytes = 0;
    for (int i = 0; i < VALUES / 2; i++) {
      ByteBuffer value = Values.fill(scratch, sizes[i], random);
      checksums[i] = Values.crc(value);
      client.put(keys.get(i), value, REPLICAS);
      totalBytes += sizes[i];
    }
    for (int from = VALUES / 2; from < VALUES; from += BATCH) {
      Map<String, ByteBuffer> batch = new LinkedHashMap<>();
      for (int i = from; i < Math.min(VALUES, from + BATCH); i++) {
        ByteBuffer value = Values.random(sizes[i], random);
        checksums[i] = Values.crc(value);
        batch.put(keys.get(i), value);
        totalBytes += sizes[i];
      }
      BatchResult result = client.putBatch(batch, REPLICAS);
      assertThat(result.failures())
          .as("failed entries of the batch put starting at value %d", from)
          .isEmpty();
    }

    JsonNode status = pool.masterAdmin().status();
    assertThat(status.path("objectCount").asLong()).isEqualTo(VALUES);
    assertThat(status.path("usedBytes").asLong()).isGreaterThanOrEqualTo(REPLICAS * totalBytes);
    assertThat(ReplicaCounts.query(pool.pool().leaderAddress(), "", keys).values())
        .as("replicas per object")
        .containsOnly(REPLICAS);

    for (int i = 0; i < VALUES; i += 2) {
      ByteBuffer value = client.get(keys.get(i));
      assertThat(value.isDirect()).isTrue();
      assertThat(value.remaining()).as("length of %s", keys.get(i)).isEqualTo(sizes[i]);
      assertThat(Values.crc(value)).as("bytes of %s", keys.get(i)).isEqualTo(checksums[i]);
    }
    for (int i = 1; i < VALUES; i += 4) {
      scratch.clear();
      int length = client.get(keys.get(i), scratch);
      assertThat(length).as("length of %s", keys.get(i)).isEqualTo(sizes[i]);
      assertThat(Values.crc(scratch.flip())).as("bytes of %s", keys.get(i)).isEqualTo(checksums[i]);
    }
    List<Integer> batchIndexes = new ArrayList<>();
    for (int i = 3; i < VALUES; i += 4) {
      batchIndexes.add(i);
    }
    for (int from = 0; from < batchIndexes.size(); from += BATCH) {
      List<Integer> indexes =
          batchIndexes.subList(from, Math.min(batchIndexes.size(), from + BATCH));
      Map<String, ByteBuffer> values = client.getBatch(indexes.stream().map(keys::get).toList());
      assertThat(values).hasSize(indexes.size());
      for (int i : indexes) {
        assertThat(Values.crc(values.get(keys.get(i))))
            .as("bytes of %s", keys.get(i))
            .isEqualTo(checksums[i]);
      }
    }
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }
}
