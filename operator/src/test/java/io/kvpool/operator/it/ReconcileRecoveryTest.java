package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.retry.GradualRetry;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.operator.common.StatusMessage;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The "Why" case of a pool blocked by an object of the same name it does not own: after the SDK's
 * default retries ran out, removing the blocker did not heal the pool without an operator restart.
 * Now every failed attempt is retried (with a capped backoff), the status says what is in the way
 * with the generation observed, and removing the blocker heals the pool.
 */
@ExtendWith(RealKubeApiServer.class)
class ReconcileRecoveryTest {
  private static final String NS = "pool-recovery";
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  /** More failed attempts than the SDK's default retry allows (it gives up after 5 retries). */
  private static final int BEYOND_DEFAULT_RETRIES = GradualRetry.DEFAULT_MAX_ATTEMPTS + 2;

  @RegisterExtension static final OperatorNamespace pools = new OperatorNamespace(NS);

  private static KubernetesClient client;
  private static PoolObjects objects;
  private static PoolEvents events;

  @BeforeAll
  static void startOperator(KubernetesClient kubernetes) {
    client = kubernetes;
    pools.startWithoutMasters(kubernetes);
    objects = new PoolObjects(client, NS);
    events = new PoolEvents(client, NS);
  }

  private static KvCachePoolStatus status(String pool) {
    KvCachePool read = client.resources(KvCachePool.class).inNamespace(NS).withName(pool).get();
    return read == null ? null : read.getStatus();
  }

  private static void assertBlockedBy(String pool, String blocker, long generation) {
    KvCachePoolStatus status = status(pool);
    assertThat(status).isNotNull();
    assertThat(status.getObservedGeneration()).isEqualTo(generation);
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
    var degraded =
        Conditions.find(status.getConditions(), KvCachePoolStatus.DEGRADED).orElseThrow();
    assertThat(degraded.getReason()).isEqualTo("ReconcileFailed");
    assertThat(degraded.getMessage())
        .contains(blocker + " already exists and is not managed by this pool")
        .doesNotContain("\tat ")
        .hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH);
  }

  private void blockThenHeal(
      String pool, Runnable createBlocker, Runnable deleteBlocker, String blocker) {
    createBlocker.run();
    client.resource(TestPools.pool(NS, pool)).create();

    await().atMost(TIMEOUT).untilAsserted(() -> assertBlockedBy(pool, blocker, 1));
    await()
        .atMost(TIMEOUT)
        .until(() -> pools.operator().failedReconciliations(pool) >= BEYOND_DEFAULT_RETRIES);
    assertThat(events.count(pool, "ReconcileFailed"))
        .as("one Event for the whole failure")
        .isEqualTo(1);

    // A spec change while failing is still observed.
    client.resources(KvCachePool.class).inNamespace(NS).withName(pool).scale(4);
    await().atMost(TIMEOUT).untilAsserted(() -> assertBlockedBy(pool, blocker, 2));

    deleteBlocker.run();

    await().atMost(TIMEOUT).until(() -> objects.allExist(pool));
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status(pool);
              assertThat(status.getObservedGeneration()).isEqualTo(2);
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Creating);
              assertThat(status.getStorage()).isEqualTo("0/4");
              assertThat(Conditions.isTrue(status.getConditions(), KvCachePoolStatus.DEGRADED))
                  .isFalse();
            });
    await().atMost(TIMEOUT).until(() -> events.count(pool, "Recovered") == 1);
    assertThat(objects.all(pool).values())
        .allSatisfy(
            object ->
                assertThat(object.getMetadata().getOwnerReferences())
                    .singleElement()
                    .satisfies(owner -> assertThat(owner.getName()).isEqualTo(pool)));
  }

  @Test
  void aConfigMapInTheWayIsReportedRetriedAndOnceRemovedThePoolHeals() {
    blockThenHeal(
        "cm-blocked",
        () ->
            client
                .resource(
                    new ConfigMapBuilder()
                        .withNewMetadata()
                        .withName("cm-blocked-config")
                        .withNamespace(NS)
                        .endMetadata()
                        .addToData("owner", "someone else")
                        .build())
                .create(),
        () -> client.configMaps().inNamespace(NS).withName("cm-blocked-config").delete(),
        "ConfigMap cm-blocked-config");
  }

  @Test
  void aServiceInTheWayIsReportedRetriedAndOnceRemovedThePoolHeals() {
    blockThenHeal(
        "svc-blocked",
        () ->
            client
                .resource(
                    new ServiceBuilder()
                        .withNewMetadata()
                        .withName("svc-blocked-master")
                        .withNamespace(NS)
                        .endMetadata()
                        .withNewSpec()
                        .addNewPort()
                        .withPort(80)
                        .endPort()
                        .endSpec()
                        .build())
                .create(),
        () -> client.services().inNamespace(NS).withName("svc-blocked-master").delete(),
        "Service svc-blocked-master");
  }
}
