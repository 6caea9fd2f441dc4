package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.api.v1alpha1.EventsSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.operator.TestPools;
import io.kvpool.protocol.BlockMetadata;
import io.kvpool.testkube.RealKubeApiServer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code spec.events} end to end without a cluster: the operator reconciles a pool with events on
 * against the real API server, the test kubelet runs the master and storage pods it renders as real
 * processes (configured only by the mounted pool ConfigMap and the pod's env), and a real JeroMQ
 * subscriber, pointed at the leader pod with the topic from the client ConfigMap, receives the
 * BlockStored of a put (with its block metadata) live on the PUB socket; the published sequence
 * reaches the pool's status.
 */
@ExtendWith(RealKubeApiServer.class)
class PoolEventsInPodsTest {
  private static final String NS = "events";
  private static final String POOL = "routed";
  private static final Duration TIMEOUT = Duration.ofSeconds(240);

  @RegisterExtension static final PoolPods pods = new PoolPods(NS);

  private static KubernetesClient client;

  @BeforeAll
  static void start(KubernetesClient kubernetes) {
    client = kubernetes;
    pods.start(kubernetes);
  }

  @Test
  void aSubscriberOfTheRenderedMasterReceivesTheBlockStoredOfAPut() {
    KvCachePool pool = TestPools.pool(NS, POOL);
    pool.getSpec().getStorage().setReplicas(1);
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("64Mi"));
    pool.getSpec().setObjectReplicas(1);
    EventsSpec events = new EventsSpec();
    events.setEnabled(true);
    events.setModel("Qwen/Qwen3-8B");
    pool.getSpec().setEvents(events);
    client.resource(pool).create();

    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status();
              assertThat(status).isNotNull();
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Running);
              assertThat(status.getEvents()).as("status.events").isNotNull();
            });
    assertThat(status().getEvents().getTopic()).isEqualTo("kv@pool:routed@Qwen/Qwen3-8B");

    Map<String, String> clientConfig =
        client.configMaps().inNamespace(NS).withName(POOL + "-client").get().getData();
    assertThat(clientConfig)
        .containsEntry("KVPOOL_EVENTS_ENDPOINT", "tcp://routed-master.events.svc:5557")
        .containsEntry("KVPOOL_EVENTS_LABEL", "kvpool.io/events-subscriber=routed");
    assertThat(
            client.services().inNamespace(NS).withName(POOL + "-master").get().getSpec().getPorts())
        .extracting(p -> p.getName() + ":" + p.getPort())
        .contains("events:5557", "events-replay:5558");
    NetworkPolicy policy =
        client.network().v1().networkPolicies().inNamespace(NS).withName(POOL).get();
    assertThat(policy.getSpec().getIngress())
        .anySatisfy(
            rule ->
                assertThat(rule.getFrom())
                    .anySatisfy(
                        peer ->
                            assertThat(peer.getPodSelector().getMatchLabels())
                                .containsEntry("kvpool.io/events-subscriber", POOL)));

    String leaderIp = pods.leaderPod(POOL).orElseThrow().getStatus().getPodIP();
    try (KvEventSubscriber subscriber =
            new KvEventSubscriber(leaderIp, 5557, 5558, clientConfig.get("KVPOOL_EVENTS_TOPIC"));
        KvPoolClient kv = client()) {
      // a new subscriber asks for everything first: the leader's full announcement
      assertThat(subscriber.replay(0)).first().isEqualTo("AllBlocksCleared");
      // ZMQ delivers nothing published before the subscription took effect: put probes until one
      // arrives live
      KvEventSubscriber.Stored probe = null;
      for (int i = 0; probe == null && i < 120; i++) {
        String key = "probe-" + i;
        kv.put(key, value(4096, i), 1);
        String hash = KvEventSubscriber.hex(key.getBytes(StandardCharsets.UTF_8));
        probe = subscriber.awaitLive(s -> s.hashes().contains(hash), Duration.ofSeconds(2));
      }
      assertThat(probe).as("a probe's BlockStored received live within 120 puts").isNotNull();

      byte[] h1 = "block-hash-0001".getBytes(StandardCharsets.UTF_8);
      byte[] h2 = "block-hash-0002".getBytes(StandardCharsets.UTF_8);
      byte[] parent = "block-hash-0000".getBytes(StandardCharsets.UTF_8);
      BlockMetadata metadata =
          new BlockMetadata(false, List.of(h1, h2), parent, new int[] {11, 12, 13, 14}, 2, 0);
      kv.put("prefix/1", value(64 << 10, 99), 1, metadata);

      KvEventSubscriber.Stored stored =
          subscriber.awaitLive(
              s -> s.hashes().equals(List.of(KvEventSubscriber.hex(h1), KvEventSubscriber.hex(h2))),
              Duration.ofSeconds(60));
      assertThat(stored)
          .as("the BlockStored of the put, live; received: %s", subscriber.live)
          .isNotNull();
      assertThat(stored.parent()).isEqualTo(KvEventSubscriber.hex(parent));
      assertThat(stored.tokens()).containsExactly(11L, 12L, 13L, 14L);
      assertThat(stored.blockSize()).isEqualTo(2);
      assertThat(stored.medium()).isEqualTo("pool:" + POOL);

      long seen = stored.sequence();
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () ->
                  assertThat(status().getEvents().getSequence())
                      .as("status.events.sequence")
                      .isGreaterThanOrEqualTo(seen));
      System.out.println(
          "kvpool events through the operator: topic "
              + status().getEvents().getTopic()
              + ", sequence "
              + status().getEvents().getSequence()
              + ", BlockStored received live at "
              + seen);
    }
  }

  private static ByteBuffer value(int size, int seed) {
    byte[] b = new byte[size];
    new java.util.Random(seed).nextBytes(b);
    return ByteBuffer.wrap(b);
  }

  private static KvPoolClient client() {
    String key = pods.clientKey(POOL);
    return KvPoolClient.connect(
        ClientConfig.builder()
            .masters(List.of(pods.masterEndpoint(POOL + "-master-0")))
            .clientId("events-test")
            .poolKey(key)
            .build());
  }

  private static KvCachePoolStatus status() {
    return pods.status(POOL);
  }
}
