package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.admin.AdminJson;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A pool exactly as the operator deploys it: the operator reconciles against the real API server,
 * the test kubelet runs the pods it renders as real processes (each in its own network namespace,
 * binding the wildcard and advertising its pod IP, configured only by the mounted pool ConfigMap
 * and the pod's env), the masters elect their leader on the pool's Lease with their own
 * service-account token and label their pod, and the status comes from the elected leader. Nothing
 * here labels a pod or writes a status by hand.
 */
@ExtendWith(RealKubeApiServer.class)
@ExtendWith(PoolInPodsTest.Diagnostics.class)
class PoolInPodsTest {
  private static final String NS = "pods";
  private static final String POOL = "live";
  private static final Duration TIMEOUT = Duration.ofSeconds(240);
  private static final int VALUES = 300;

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
    // what the <pool>-master Service does in a cluster: select the pod the elected leader labelled
    operator =
        TestOperator.start(
            NS,
            pool ->
                leaderPod(pool.getMetadata().getName())
                    .map(p -> URI.create("http://" + p.getStatus().getPodIP() + ":8080"))
                    .orElse(
                        URI.create(
                            "http://"
                                + pool.getMetadata().getName()
                                + "-master."
                                + NS
                                + ".svc:8080")));
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
      assertThat(HostPort.parse(node.endpoint()).host()).isEqualTo(kubelet.podIp(node.id()));
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
    kubelet.killContainer(leader);
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
      masters.add(new HostPort(kubelet.podIp(POOL + "-master-" + i), 50051));
    }
    // what an inference pod does: the client key from the Secret the client ConfigMap names
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
    KvCachePool pool = client.resources(KvCachePool.class).inNamespace(NS).withName(POOL).get();
    return pool == null ? null : pool.getStatus();
  }

  private static MasterStatus masterStatus(String pod) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + kubelet.podIp(pod) + ":8080/status"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return AdminJson.read(r.body(), MasterStatus.class);
  }

  private static List<String> labelledLeaders() {
    return client
        .pods()
        .inNamespace(NS)
        .withLabel("app.kubernetes.io/instance", POOL)
        .withLabel("kvpool.io/role", "leader")
        .list()
        .getItems()
        .stream()
        .map(p -> p.getMetadata().getName())
        .toList();
  }

  private static java.util.Optional<Pod> leaderPod(String pool) {
    return client
        .pods()
        .inNamespace(NS)
        .withLabel("app.kubernetes.io/instance", pool)
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
