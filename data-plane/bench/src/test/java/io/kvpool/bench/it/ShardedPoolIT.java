package io.kvpool.bench.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.bench.scaleout.ShardMap;
import io.kvpool.bench.scaleout.ShardedClient;
import io.kvpool.cli.LocalPool;
import io.kvpool.client.KvPoolClient;
import io.kvpool.it.LocalPoolExtension;
import io.kvpool.it.Values;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The prototype of docs/scale-out.md with real processes: two master groups (each a master and two
 * storage nodes, its own pool) own half of the hash space each; a client routes every key by the
 * shard map. Each key is stored in its owner's group only; while shard 0's master is killed and
 * restarted (its recovery from its nodes' inventories), shard 1 keeps serving gets and new puts;
 * afterwards every key of both shards reads back byte for byte.
 */
class ShardedPoolIT {
  private static final int KEYS = 300;
  private static final int VALUE_BYTES = 4096;

  @RegisterExtension
  final LocalPoolExtension shard0 =
      new LocalPoolExtension(b -> b.poolId("shard-0").storageNodes(2).memoryPerNode("32MiB"));

  @RegisterExtension
  final LocalPoolExtension shard1 =
      new LocalPoolExtension(b -> b.poolId("shard-1").storageNodes(2).memoryPerNode("32MiB"));

  @Test
  void keysSplitByHashAndOneShardFailsOverWhileTheOtherServes() {
    ShardMap map =
        ShardMap.evenSplit(
            1, List.of(shard0.pool().masterAddress(), shard1.pool().masterAddress()));
    SplittableRandom random = new SplittableRandom(34);
    Map<String, ByteBuffer> stored = new LinkedHashMap<>();
    try (ShardedClient client =
        new ShardedClient(map, b -> b.operationTimeout(Duration.ofMinutes(2)))) {
      for (int i = 0; i < KEYS; i++) {
        String key = "prefix/" + Long.toHexString(random.nextLong());
        ByteBuffer value = Values.random(VALUE_BYTES, random);
        client.put(key, value.duplicate(), 2);
        stored.put(key, value);
      }
      List<String> ofShard0 = new ArrayList<>();
      List<String> ofShard1 = new ArrayList<>();
      stored.keySet().forEach(k -> (map.shardOf(k) == 0 ? ofShard0 : ofShard1).add(k));
      assertThat(ofShard0).as("an even split gives each shard keys").hasSizeGreaterThan(KEYS / 4);
      assertThat(ofShard1).hasSizeGreaterThan(KEYS / 4);
      KvPoolClient direct0 = shard0.newClient("check-0");
      KvPoolClient direct1 = shard1.newClient("check-1");
      for (String k : ofShard0.subList(0, 20)) {
        assertThat(direct0.exists(k)).isTrue();
        assertThat(direct1.exists(k)).as("stored only by its owner").isFalse();
      }
      for (String k : ofShard1.subList(0, 20)) {
        assertThat(direct1.exists(k)).isTrue();
        assertThat(direct0.exists(k)).as("stored only by its owner").isFalse();
      }

      LocalPool.MasterProcess master0 = shard0.pool().masters().get(0);
      master0.process().kill();
      // shard 0 has no master now: shard 1 serves gets and new puts all the same
      for (String k : ofShard1) {
        assertThat(client.get(k)).as(k).isEqualTo(stored.get(k));
      }
      for (int i = 0; i < 50; i++) {
        String key = "during-failover/" + i;
        if (map.shardOf(key) == 1) {
          ByteBuffer value = Values.random(VALUE_BYTES, random);
          client.put(key, value.duplicate(), 2);
          stored.put(key, value);
        }
      }
      assertThat(shard0.pool().masters().get(0).process().isAlive()).isFalse();

      shard0.pool().restartMaster(0); // recovers shard 0 from its nodes' inventories
      for (Map.Entry<String, ByteBuffer> e : stored.entrySet()) {
        assertThat(client.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
      assertThat(client.owner(ofShard0.get(0)).stats().objects()).isEqualTo(ofShard0.size());
    }
  }
}
