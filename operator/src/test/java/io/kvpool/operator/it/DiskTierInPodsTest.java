package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.StorageStatus;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.NoSpaceException;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.testkube.RealKubeApiServer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool with {@code spec.storage.disk} exactly as the operator deploys it: the test kubelet runs
 * the rendered pods as processes, the storage nodes open their disk tiers on the rendered emptyDir
 * from nothing but the rendered environment, a working set twice the pool's memory is written and
 * every value is read back (the ones evicted from memory from the nodes' disk tiers), and the
 * nodes' tier figures reach the pool's status through their heartbeats and the leader.
 */
@ExtendWith(RealKubeApiServer.class)
class DiskTierInPodsTest {
  private static final String NS = "disk-pods";
  private static final String POOL = "tiered";
  private static final Duration TIMEOUT = Duration.ofSeconds(240);
  private static final int NODES = 2;
  private static final long MEMORY_PER_NODE = 16L << 20;
  private static final int VALUE_BYTES = 1 << 20;

  @RegisterExtension static final PoolPods pods = new PoolPods(NS);

  private static KubernetesClient client;

  @BeforeAll
  static void start(KubernetesClient kubernetes) {
    client = kubernetes;
    pods.start(kubernetes);
  }

  @Test
  void valuesEvictedFromMemoryAreReadBackFromTheRenderedDiskTiers() throws Exception {
    KvCachePool pool = TestPools.pool(NS, POOL);
    pool.getSpec().setObjectReplicas(1);
    pool.getSpec().getStorage().setReplicas(NODES);
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("16Mi"));
    DiskTierSpec disk = new DiskTierSpec();
    disk.setSize(new Quantity("64Mi"));
    disk.setFileSize(new Quantity("2Mi"));
    pool.getSpec().getStorage().setDisk(disk);
    client.resource(pool).create();

    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status();
              assertThat(status).isNotNull();
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Running);
              assertThat(Conditions.isTrue(status.getConditions(), "Ready")).isTrue();
              assertThat(status.getStorage()).isEqualTo(NODES + "/" + NODES);
            });
    // every node opened its tier where the operator put it: the emptyDir, in a folder of its own
    for (int i = 0; i < NODES; i++) {
      StorageStatus.Disk tier = storageStatus(POOL + "-storage-" + i).disk();
      assertThat(tier).as("disk tier of node %d", i).isNotNull();
      assertThat(tier.dir()).isEqualTo("/var/lib/kvpool/disk/" + POOL + "-storage-" + i);
      assertThat(tier.capBytes()).isEqualTo(64L << 20);
      assertThat(tier.healthy()).isTrue();
    }

    // a working set twice the pool's memory, one replica each: memory alone cannot hold it
    Map<String, byte[]> values = values(2 * NODES * MEMORY_PER_NODE / VALUE_BYTES);
    try (KvPoolClient kv = client()) {
      for (Map.Entry<String, byte[]> e : values.entrySet()) {
        putRetryingNoSpace(kv, e.getKey(), e.getValue());
      }
      for (Map.Entry<String, byte[]> e : values.entrySet()) {
        ByteBuffer got = kv.get(e.getKey());
        byte[] bytes = new byte[got.remaining()];
        got.get(bytes);
        assertThat(bytes).as(e.getKey()).isEqualTo(e.getValue());
      }
    }
    MasterStatus master = masterStatus();
    assertThat(master.counters().evictions())
        .as("values deleted to make room (none: they moved to disk)")
        .isZero();
    long spilled = 0;
    for (int i = 0; i < NODES; i++) {
      StorageStatus.Disk tier = storageStatus(POOL + "-storage-" + i).disk();
      spilled += tier.spills();
      assertThat(tier.reads()).as("reads from the tier of node %d", i).isPositive();
    }
    assertThat(spilled).as("values moved to the disk tiers").isPositive();

    // the tiers' figures reach the pool's status: a disk tier and a healthy condition
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status();
              assertThat(status.getCacheSignals().getTiers())
                  .anySatisfy(
                      t -> {
                        assertThat(t.getName()).isEqualTo("disk");
                        assertThat(t.getCapacity()).isEqualTo("128Mi");
                        assertThat(t.getFullnessPercent()).isPositive();
                      });
              assertThat(Conditions.find(status.getConditions(), "DiskTierDegraded"))
                  .hasValueSatisfying(
                      c -> {
                        assertThat(c.getStatus()).isEqualTo("False");
                        assertThat(c.getMessage())
                            .startsWith("The disk tiers of 2 storage node(s) are healthy");
                      });
            });
    System.out.println(
        "kubectl get kvcachepools -o yaml (disk tiers, from the pods):\n"
            + Kubectl.run("get", "kvcachepools", "-n", NS, "-o", "yaml"));
  }

  /**
   * A put that tries again when the master found no room at that moment (every object in memory
   * still a pending put, not yet evictable), as DiskTierPoolTest does; each retry is printed.
   */
  private static void putRetryingNoSpace(KvPoolClient kv, String key, byte[] value)
      throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        kv.put(key, ByteBuffer.wrap(value), 1);
        return;
      } catch (NoSpaceException e) {
        if (attempt == 50) {
          throw e;
        }
        System.out.println("put " + key + " found no room (attempt " + attempt + ")");
        Thread.sleep(100);
      }
    }
  }

  private static Map<String, byte[]> values(long count) {
    Random random = new Random(7);
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      byte[] value = new byte[VALUE_BYTES];
      random.nextBytes(value);
      values.put("tiered-" + i, value);
    }
    return values;
  }

  private static KvPoolClient client() {
    String key = pods.clientKey(POOL);
    return KvPoolClient.connect(
        ClientConfig.builder()
            .masters(List.of(pods.masterEndpoint(POOL + "-master-0")))
            .clientId("disk-pods-test")
            .poolKey(key)
            .timeout(Duration.ofSeconds(30))
            .build());
  }

  private static KvCachePoolStatus status() {
    return pods.status(POOL);
  }

  private static MasterStatus masterStatus() throws Exception {
    return pods.adminStatus(POOL + "-master-0", PoolPods.MASTER_ADMIN_PORT, MasterStatus.class);
  }

  private static StorageStatus storageStatus(String pod) throws Exception {
    return pods.adminStatus(pod, PoolPods.STORAGE_ADMIN_PORT, StorageStatus.class);
  }
}
