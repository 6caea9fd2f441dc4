package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.admin.AdminJson;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.StorageStatus;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.client.NoSpaceException;
import io.kvpool.common.HostPort;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.operator.render.PoolKeys;
import io.kvpool.testkube.RealKubeApiServer;
import io.kvpool.testkube.kubelet.DataPlaneImage;
import io.kvpool.testkube.kubelet.ProcessKubelet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A pool with {@code spec.storage.disk} exactly as the operator deploys it: the test kubelet runs
 * the rendered pods as processes, the storage nodes open their disk tiers on the rendered emptyDir
 * from nothing but the rendered environment, a working set twice the pool's memory is written and
 * every value is read back (the ones evicted from memory from the nodes' disk tiers), and the
 * nodes' tier figures reach the pool's status through their heartbeats and the leader.
 */
@ExtendWith(RealKubeApiServer.class)
@ExtendWith(DiskTierInPodsTest.Diagnostics.class)
class DiskTierInPodsTest {
  private static final String NS = "disk-pods";
  private static final String POOL = "tiered";
  private static final Duration TIMEOUT = Duration.ofSeconds(240);
  private static final int NODES = 2;
  private static final long MEMORY_PER_NODE = 16L << 20;
  private static final int VALUE_BYTES = 1 << 20;

  private static KubernetesClient client;
  private static ProcessKubelet kubelet;
  private static TestOperator operator;

  @BeforeAll
  static void start(KubernetesClient kubernetes) {
    client = kubernetes;
    client
        .resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
        .serverSideApply();
    kubelet = ProcessKubelet.start(client, NS, Map.ofEntries(DataPlaneImage.tagged("0.1.0")));
    operator =
        TestOperator.start(
            NS,
            pool ->
                leaderPod()
                    .map(p -> URI.create("http://" + p.getStatus().getPodIP() + ":8080"))
                    .orElse(URI.create("http://" + POOL + "-master." + NS + ".svc:8080")));
  }

  @AfterAll
  static void stop() {
    if (operator != null) {
      operator.close();
    }
    if (kubelet != null) {
      kubelet.close();
    }
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
    String secret =
        client
            .configMaps()
            .inNamespace(NS)
            .withName(POOL + "-client")
            .get()
            .getData()
            .get("KVPOOL_CLIENT_SECRET");
    String key =
        PoolKeys.decode(client.secrets().inNamespace(NS).withName(secret).get().getData())
            .get("client-key");
    return KvPoolClient.connect(
        ClientConfig.builder()
            .masters(List.of(new HostPort(kubelet.podIp(POOL + "-master-0"), 50051)))
            .clientId("disk-pods-test")
            .poolKey(key)
            .timeout(Duration.ofSeconds(30))
            .build());
  }

  private static KvCachePoolStatus status() {
    KvCachePool pool = client.resources(KvCachePool.class).inNamespace(NS).withName(POOL).get();
    return pool == null ? null : pool.getStatus();
  }

  private static MasterStatus masterStatus() throws Exception {
    return AdminJson.read(get(POOL + "-master-0", 8080), MasterStatus.class);
  }

  private static StorageStatus storageStatus(String pod) throws Exception {
    return AdminJson.read(get(pod, 8081), StorageStatus.class);
  }

  private static String get(String pod, int port) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://" + kubelet.podIp(pod) + ":" + port + "/status"))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  private static Optional<Pod> leaderPod() {
    return client
        .pods()
        .inNamespace(NS)
        .withLabel("app.kubernetes.io/instance", POOL)
        .withLabel("kvpool.io/role", "leader")
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getStatus() != null && p.getStatus().getPodIP() != null)
        .findFirst();
  }

  /** On failure: every pod's state and log, and the pool's status. */
  static final class Diagnostics implements TestWatcher {
    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
      System.out.println("===== " + context.getDisplayName() + " failed; pool status: " + status());
      if (kubelet != null) {
        System.out.println(kubelet.diagnostics());
      }
    }
  }
}
