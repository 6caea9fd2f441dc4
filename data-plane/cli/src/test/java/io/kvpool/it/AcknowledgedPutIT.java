package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.cli.StorageNodeProcess;
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
 * Issue 28: an acknowledged put is readable at once after one storage node's kill -9, at every
 * moment of its commit. With protocol 2.2 a writer returns once every node replied {@code committed
 * = 1}; node-1 here promises its COMMITs and never sends them (the test fault {@code
 * KVPOOL_FAULT_HOLD_COMMITS}), which holds every put it takes part in exactly where a node killed
 * between its WRITE reply and its COMMIT leaves it; then it is killed -9 and every value is read at
 * once, before the master has even noticed the death. Real master, real storage nodes, the real
 * client.
 */
class AcknowledgedPutIT {
  private static final int VALUES = 60;
  private static final String HELD = "node-1";

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b ->
              b.storageNodes(3)
                  .memoryPerNode("128MiB")
                  .childEnv("KVPOOL_FAULT_HOLD_COMMITS", HELD));

  @Test
  void putsAcknowledgedByTheirNodesReadBackAtOnceAfterTheKillOfANodeWhoseCommitsNeverLeft() {
    KvPoolClient client = pool.newClient("it-acknowledged");
    SplittableRandom random = new SplittableRandom(28);
    Map<String, ByteBuffer> single = new LinkedHashMap<>();
    Map<String, ByteBuffer> batch = new LinkedHashMap<>();
    for (int i = 0; i < VALUES; i++) {
      (i % 2 == 0 ? single : batch)
          .put("ack/" + i, Values.random(1 + random.nextInt(300_000), random));
    }
    single.forEach((k, v) -> client.put(k, v.duplicate(), 2));
    BatchResult stored = client.putBatch(dup(batch), 2);
    assertThat(stored.failures()).isEmpty();
    assertThat(client.putCommitStats().byPutEnd())
        .as("every put was acknowledged from its nodes' replies alone")
        .isZero();

    StorageNodeProcess held = pool.pool().storageNode(HELD);
    held.process().kill();
    assertThat(held.process().isAlive()).isFalse();

    List<String> missing = new ArrayList<>();
    Map<String, ByteBuffer> all = new LinkedHashMap<>(single);
    all.putAll(batch);
    all.forEach(
        (key, value) -> {
          try {
            ByteBuffer got = client.get(key);
            assertThat(Values.crc(got)).as(key).isEqualTo(Values.crc(value.duplicate()));
          } catch (RuntimeException e) {
            missing.add(key + ": " + e.getMessage());
          }
        });
    assertThat(missing)
        .as("acknowledged puts missing right after the kill; logs:%n%s", pool.pool().logTails(30))
        .isEmpty();
    Map<String, ByteBuffer> got = client.getBatch(new ArrayList<>(batch.keySet()));
    batch.forEach(
        (key, value) ->
            assertThat(got.get(key))
                .as("batch get of %s", key)
                .isNotNull()
                .satisfies(
                    v -> assertThat(Values.crc(v)).isEqualTo(Values.crc(value.duplicate()))));
  }

  private static Map<String, ByteBuffer> dup(Map<String, ByteBuffer> values) {
    Map<String, ByteBuffer> out = new LinkedHashMap<>();
    values.forEach((k, v) -> out.put(k, v.duplicate()));
    return out;
  }
}
