package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.render.PoolKeys;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pool's secrets and NetworkPolicy against the real API server: the operator makes random keys
 * in a Secret the pool owns, gives clients a Secret with the client key only, mounts the keys into
 * masters and storage nodes, rotates them when asked while keeping the old ones accepted, and
 * writes a NetworkPolicy. No key value ever appears in a ConfigMap, the pool's status, an Event or
 * a log line of this test run.
 */
@ExtendWith(RealKubeApiServer.class)
class PoolSecretsTest {
  private static final String NS = "pool-secrets";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final List<String> LOG = Collections.synchronizedList(new ArrayList<>());
  private static final Handler CAPTURE =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          LOG.add(
              String.valueOf(record.getMessage())
                  + " "
                  + java.util.Arrays.toString(record.getParameters()));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @RegisterExtension static final OperatorNamespace pools = new OperatorNamespace(NS);

  private static KubernetesClient client;

  @BeforeAll
  static void start(KubernetesClient kubernetes) {
    Logger.getLogger("").addHandler(CAPTURE);
    client = kubernetes;
    pools.startWithoutMasters(kubernetes);
  }

  @AfterAll
  static void stop() {
    Logger.getLogger("").removeHandler(CAPTURE);
  }

  private static Secret secret(String name) {
    return client.secrets().inNamespace(NS).withName(name).get();
  }

  @Test
  void keysAreMadeMountedRotatedAndNeverShown() {
    KvCachePool pool = client.resource(TestPools.pool(NS, "guarded")).create();
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                secret("guarded-client-key") != null
                    && client
                            .network()
                            .v1()
                            .networkPolicies()
                            .inNamespace(NS)
                            .withName("guarded")
                            .get()
                        != null
                    && client.apps().statefulSets().inNamespace(NS).withName("guarded-master").get()
                        != null
                    && client
                            .apps()
                            .statefulSets()
                            .inNamespace(NS)
                            .withName("guarded-storage")
                            .get()
                        != null);

    Secret keys = secret("guarded-keys");
    Map<String, String> values = PoolKeys.decode(keys.getData());
    assertThat(values).containsOnlyKeys("cluster-key", "client-key", "admin-token");
    assertThat(values.values()).allSatisfy(v -> assertThat(v).hasSize(43)).doesNotHaveDuplicates();
    assertThat(keys.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(pool.getMetadata().getUid()));
    assertThat(PoolKeys.decode(secret("guarded-client-key").getData()))
        .containsExactly(Map.entry("client-key", values.get("client-key")));
    for (String component : List.of("master", "storage")) {
      StatefulSet sts =
          client.apps().statefulSets().inNamespace(NS).withName("guarded-" + component).get();
      var podSpec = sts.getSpec().getTemplate().getSpec();
      assertThat(podSpec.getVolumes())
          .filteredOn(v -> v.getSecret() != null)
          .anySatisfy(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("guarded-keys"));
      assertThat(podSpec.getContainers().get(0).getEnv())
          .anySatisfy(
              e -> {
                assertThat(e.getName()).isEqualTo("KVPOOL_SECRET_DIR");
                assertThat(e.getValue()).isEqualTo("/etc/kvpool-keys");
              });
    }
    ConfigMap clientConfig = client.configMaps().inNamespace(NS).withName("guarded-client").get();
    assertThat(clientConfig.getData())
        .containsEntry("KVPOOL_CLIENT_SECRET", "guarded-client-key")
        .containsEntry("KVPOOL_CLIENT_LABEL", "kvpool.io/client=guarded");

    NetworkPolicy policy =
        client.network().v1().networkPolicies().inNamespace(NS).withName("guarded").get();
    assertThat(policy.getSpec().getPodSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/instance", "guarded");
    List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
    assertThat(rules.get(0).getFrom().get(0).getPodSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/instance", "guarded");
    assertThat(rules.get(0).getPorts()).isNullOrEmpty(); // the pool's own pods: every port
    assertThat(rules.get(1).getFrom().get(0).getPodSelector().getMatchLabels())
        .containsExactly(Map.entry("kvpool.io/client", "guarded"));
    assertThat(rules.get(1).getPorts())
        .extracting(p -> p.getPort().getIntVal())
        .containsExactly(50051, 50052);

    // rotation: new keys, the old ones kept as .previous, clients' Secret follows
    Edits.edit(
        client,
        KvCachePool.class,
        NS,
        "guarded",
        p -> {
          if (p.getMetadata().getAnnotations() == null) {
            p.getMetadata().setAnnotations(new java.util.HashMap<>());
          }
          p.getMetadata().getAnnotations().put(PoolKeys.ROTATE_ANNOTATION, "2026-11-23");
        });
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                PoolKeys.decode(secret("guarded-keys").getData())
                    .containsKey("cluster-key.previous"));
    Map<String, String> rotated = PoolKeys.decode(secret("guarded-keys").getData());
    assertThat(rotated.get("cluster-key.previous")).isEqualTo(values.get("cluster-key"));
    assertThat(rotated.get("client-key.previous")).isEqualTo(values.get("client-key"));
    assertThat(rotated.get("cluster-key")).isNotEqualTo(values.get("cluster-key")).hasSize(43);
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                PoolKeys.decode(secret("guarded-client-key").getData())
                    .get("client-key")
                    .equals(rotated.get("client-key")));
    // the same request again does not rotate twice
    assertThat(PoolKeys.decode(secret("guarded-keys").getData())).isEqualTo(rotated);

    List<String> secrets = new ArrayList<>(values.values());
    secrets.addAll(rotated.values());
    StringBuilder visible = new StringBuilder();
    client
        .configMaps()
        .inNamespace(NS)
        .list()
        .getItems()
        .forEach(c -> visible.append(Serialization.asJson(c)));
    visible.append(
        Serialization.asJson(
            client
                .resources(KvCachePool.class)
                .inNamespace(NS)
                .withName("guarded")
                .get()
                .getStatus()));
    for (Event e : client.v1().events().inNamespace(NS).list().getItems()) {
      visible.append(e.getMessage());
    }
    synchronized (LOG) {
      LOG.forEach(visible::append);
    }
    assertThat(LOG).as("log lines were captured").isNotEmpty();
    for (String s : secrets) {
      assertThat(visible.toString()).as("a key shown outside its Secret").doesNotContain(s);
    }
  }
}
