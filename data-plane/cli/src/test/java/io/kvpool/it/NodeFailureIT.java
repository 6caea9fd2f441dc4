package io.kvpool.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvpool.cli.StorageNodeProcess;
import io.kvpool.client.KvPoolClient;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * kill -9 of a storage node: nothing is lost, the master repairs every object back to two replicas,
 * and the node, restarted under the same id, joins again.
 */
class NodeFailureIT {

  private static final int VALUES = 300;
  private static final int REPLICAS = 2;
  private static final Duration NODE_TTL = Duration.ofSeconds(3);
  private static final Duration REPAIR_TIME = Duration.ofSeconds(60);

  @RegisterExtension
  final LocalPoolExtension pool =
      new LocalPoolExtension(
          b -> b.storageNodes(3).memoryPerNode("256MiB").nodeTtl("3s").heartbeat("500ms"));

  @Test
  void killedNodeLosesNothingAndObjectsAreRepairedToTwoReplicas() {
    KvPoolClient client = pool.newClient("it-node-failure");
    SplittableRandom random = new SplittableRandom(99);
    List<String> keys = new ArrayList<>();
    long[] checksums = new long[VALUES];
    for (int i = 0; i < VALUES; i++) {
      int size = (int) Math.round(1024 * Math.pow(1024, random.nextDouble()));
      ByteBuffer value = Values.random(size, random);
      checksums[i] = Values.crc(value);
      keys.add("it/failure/" + i);
      client.put(keys.get(i), value, REPLICAS);
    }

    StorageNodeProcess victim = pool.pool().storageNode("node-2");
    victim.process().kill();
    assertThat(victim.process().isAlive()).isFalse();

    // straight after the crash, before the master even noticed: reads fail over to the other
    // replica
    assertAllReadable(client, keys, checksums);

    AtomicReference<String> observed = new AtomicReference<>("nothing yet");
    Eventually.await(
        NODE_TTL.plus(REPAIR_TIME),
        "node-2 DEAD, no under-replicated object, 2 replicas each",
        () -> {
          JsonNode status = pool.masterAdmin().status();
          Map<String, Integer> counts = ReplicaCounts.query(pool.pool().leaderAddress(), "", keys);
          long fullyReplicated = counts.values().stream().filter(c -> c == REPLICAS).count();
          observed.set(
              "node-2 state "
                  + nodeState(status, "node-2")
                  + ", underReplicated "
                  + status.path("counters").path("underReplicated")
                  + ", objects with 2 replicas "
                  + fullyReplicated
                  + "/"
                  + VALUES);
          return "DEAD".equals(nodeState(status, "node-2"))
              && status.path("counters").path("underReplicated").asLong() == 0
              && fullyReplicated == VALUES;
        },
        observed::get);

    JsonNode status = pool.masterAdmin().status();
    assertThat(status.path("counters").path("objectsLost").asLong()).isZero();
    assertThat(status.path("counters").path("repairs").asLong()).isPositive();
    assertAllReadable(client, keys, checksums);
    assertThat(pool.pool().exitedProcesses()).containsExactly("node-2 exit=137");

    // the machine comes back: the same node id registers again, empty, and takes new replicas
    pool.pool().startStorageNode("node-2");
    assertThat(nodeState(pool.masterAdmin().status(), "node-2")).isEqualTo("ALIVE");
    ByteBuffer fresh = Values.random(64 << 10, random);
    for (int i = 0; i < 30; i++) {
      client.put("it/failure/after/" + i, fresh, 3);
    }
    assertThat(ReplicaCounts.query(pool.pool().leaderAddress(), "", List.of("it/failure/after/0")))
        .containsEntry("it/failure/after/0", 3);
    assertThat(pool.pool().exitedProcesses()).isEmpty();
  }

  private static String nodeState(JsonNode status, String id) {
    for (JsonNode node : status.path("nodes")) {
      if (id.equals(node.path("id").asText())) {
        return node.path("state").asText();
      }
    }
    return "absent";
  }

  private static void assertAllReadable(KvPoolClient client, List<String> keys, long[] checksums) {
    for (int i = 0; i < keys.size(); i++) {
      assertThat(Values.crc(client.get(keys.get(i))))
          .as("bytes of %s", keys.get(i))
          .isEqualTo(checksums[i]);
    }
  }
}
