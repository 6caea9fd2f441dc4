package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.MasterSpec;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.testkube.RealKubeApiServer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A pool exactly as the operator deploys it: the operator reconciles against the real API server,
 * the test kubelet runs the pods it renders as real processes (each in its own network namespace,
 * binding the wildcard and advertising its pod IP, configured only by the mounted pool ConfigMap
 * and the pod's env), the masters elect their leader on the pool's Lease with their own
 * service-account token and label their pod, and the status comes from the elected leader. Nothing
 * here labels a pod or writes a status by hand.
 */
@ExtendWith(RealKubeApiServer.class)
class PoolInPodsTest {
  private static final String NS = "pods";
  private static final String POOL = "live";
  private static final Duration TIMEOUT = Duration.ofSeconds(240);
  private static final int VALUES = 300;

  @RegisterExtension static final PoolPods pods = new PoolPods(NS);

  private static KubernetesClient client;

  @BeforeAll
  static void start(KubernetesClient kubernetes) {
    client = kubernetes;
    pods.start(kubernetes);
  }

  @Test
  void threeElectedMastersAndThreeNodesServeFromTheRenderedConfigurationAndSurviveALeaderKill()
      throws Exception {
    KvCachePool pool = TestPools.pool(NS, POOL);
    MasterSpec masters = new MasterSpec();
    masters.setReplicas(3);
    pool.getSpec().setMaster(masters);
    pool.getSpec()
        .getStorage()
        .setMemoryPerNode(new io.fabric8.kubernetes.api.model.Quantity("64Mi"));
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
              assertThat(status.getMasters()).isEqualTo("3/3");
              assertThat(status.getStorage()).isEqualTo("3/3");
            });
    String leader = status().getLeader();
    assertThat(labelledLeaders())
        .as("pods labelled leader by the elected master")
        .containsExactly(leader);
    MasterStatus master = masterStatus(leader);
    assertThat(master.leading()).isTrue();
    assertThat(master.aliveNodes()).isEqualTo(3);
    // each storage node registered the address of its own pod, never a wildcard
    for (MasterStatus.NodeStatus node : master.nodes()) {
      assertThat(HostPort.parse(node.endpoint()).host()).isEqualTo(pods.podIp(node.id()));
    }

    Map<String, byte[]> values = values();
    try (KvPoolClient kv = client()) {
      for (Map.Entry<String, byte[]> e : values.entrySet()) {
        kv.put(e.getKey(), ByteBuffer.wrap(e.getValue()), 2);
      }
      assertReadable(kv, values);
    }
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(status().getObjectCount()).isEqualTo(VALUES);
              assertThat(status().getCapacity()).isEqualTo("192Mi");
              // the cache signals of the real leader, through the operator: one memory tier,
              // nothing evicted or missed
              assertThat(status().getCacheSignals().getTiers())
                  .singleElement()
                  .satisfies(
                      t -> {
                        assertThat(t.getName()).isEqualTo("memory");
                        assertThat(t.getCapacity()).isEqualTo("192Mi");
                      });
              assertThat(status().getCacheSignals().getFullnessPercent()).isPositive();
              assertThat(status().getCacheSignals().getEvictedBytesPerSecond()).isZero();
              assertThat(status().getCacheSignals().getCapacityMissesPerSecond()).isZero();
            });
    System.out.println(
        "kubectl get kvcachepools -o wide (3 masters, 3 storage nodes, from the pods):\n"
            + Kubectl.run("get", "kvcachepools", "-n", NS, "-o", "wide"));

    long view = master.view();
    pods.kubelet().killContainer(leader);
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status();
              assertThat(status.getViewNumber()).isGreaterThan(view);
              assertThat(status.getLeader()).isNotNull();
              assertThat(labelledLeaders()).containsExactly(status.getLeader());
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Running);
              assertThat(status.getObjectCount()).isEqualTo(VALUES);
            });
    System.out.println(
        "kubectl get kvcachepools -o wide (after kill -9 of leader "
            + leader
            + "):\n"
            + Kubectl.run("get", "kvcachepools", "-n", NS, "-o", "wide"));
    try (KvPoolClient kv = client()) {
      assertReadable(kv, values);
    }
  }

  private static KvPoolClient client() {
    List<HostPort> masters = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      masters.add(pods.masterEndpoint(POOL + "-master-" + i));
    }
    // what an inference pod does: the client key from the Secret the client ConfigMap names
    String key = pods.clientKey(POOL);
    return KvPoolClient.connect(
        ClientConfig.builder().masters(masters).clientId("pods-test").poolKey(key).build());
  }

  private static void assertReadable(KvPoolClient kv, Map<String, byte[]> values) {
    for (Map.Entry<String, byte[]> e : values.entrySet()) {
      ByteBuffer got = kv.get(e.getKey());
      byte[] bytes = new byte[got.remaining()];
      got.get(bytes);
      assertThat(bytes).as(e.getKey()).isEqualTo(e.getValue());
    }
  }

  private static Map<String, byte[]> values() {
    Random random = new Random(42);
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < VALUES; i++) {
      byte[] value = new byte[1 + random.nextInt(64 << 10)];
      random.nextBytes(value);
      values.put("block-" + i, value);
    }
    return values;
  }

  private static KvCachePoolStatus status() {
    return pods.status(POOL);
  }

  private static MasterStatus masterStatus(String pod) throws Exception {
    return pods.adminStatus(pod, PoolPods.MASTER_ADMIN_PORT, MasterStatus.class);
  }

  private static List<String> labelledLeaders() {
    return pods.leaderPods(POOL).stream().map(p -> p.getMetadata().getName()).toList();
  }
}
