package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kvpool.api.v1alpha1.AutoscalingSpec;
import io.kvpool.api.v1alpha1.AutoscalingTargets;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.ScaleDownBehavior;
import io.kvpool.api.v1alpha1.ScaleUpBehavior;
import io.kvpool.api.v1alpha1.ScalingDecision;
import io.kvpool.operator.TestPools;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Autoscaling wired into reconciliation, against the real API server: the leader's cache signals (a
 * {@link FakeMaster} reporting them) reach status.cacheSignals, a target exceeded makes the
 * operator write spec.storage.replicas, which the storage StatefulSet follows, with an Event and a
 * status entry; another writer's count is adopted and held. The decision's rules are {@code
 * AutoscalerTest}'s; the drain a scale-down goes through is {@code RollingUpgradeTest}'s.
 */
@ExtendWith(RealKubeApiServer.class)
class AutoscalingTest {
  private static final String NS = "pool-autoscaling";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @RegisterExtension static final OperatorNamespace pools = new OperatorNamespace(NS);

  private static KubernetesClient client;
  private static PoolObjects objects;
  private static PoolEvents events;

  @BeforeAll
  static void startOperator(KubernetesClient kubernetes) {
    client = kubernetes;
    pools.startWithFakeMasters(kubernetes);
    objects = new PoolObjects(client, NS);
    events = new PoolEvents(client, NS);
  }

  private static KvCachePool pool(String name) {
    return client.resources(KvCachePool.class).inNamespace(NS).withName(name).get();
  }

  private static KvCachePoolStatus status(String name) {
    return pool(name).getStatus();
  }

  /** min 2, max 4, fullness 80 %, windows of 0 s: each reading decides. */
  private static KvCachePool autoscaledPool(String name) {
    KvCachePool pool = TestPools.pool(NS, name);
    AutoscalingSpec autoscaling = new AutoscalingSpec();
    autoscaling.setEnabled(true);
    autoscaling.setMinReplicas(2);
    autoscaling.setMaxReplicas(4);
    AutoscalingTargets targets = new AutoscalingTargets();
    targets.setFullnessPercent(80);
    autoscaling.setTargets(targets);
    ScaleUpBehavior up = new ScaleUpBehavior();
    up.setStabilizationWindowSeconds(0);
    autoscaling.setScaleUp(up);
    ScaleDownBehavior down = new ScaleDownBehavior();
    down.setStabilizationWindowSeconds(0);
    autoscaling.setScaleDown(down);
    pool.getSpec().getStorage().setAutoscaling(autoscaling);
    return pool;
  }

  @Test
  void aFullPoolGrowsWithAnEventAndAStatusEntryAndAnotherWriterIsHeldTo() {
    String name = "grows";
    pools.master(name).servingWithSignals(name, 3, 0.5, 0);
    client.resource(autoscaledPool(name)).create();
    await().atMost(TIMEOUT).until(() -> objects.allExist(name));
    objects.markReady(name + "-master"); // the leader is asked once a master pod is ready
    objects.markReady(name + "-storage");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus s = status(name);
              assertThat(s.getCacheSignals()).as("%s", s).isNotNull();
              assertThat(s.getCacheSignals().getFullnessPercent()).isEqualTo(50.0);
              assertThat(s.getCacheSignals().getTiers())
                  .singleElement()
                  .satisfies(t -> assertThat(t.getName()).isEqualTo("memory"));
              // no kubelet creates the pods here, so the rollout waits for them: RolloutInProgress
              // (no scale-down) or
              // WithinTargets; both hold
              assertThat(s.getAutoscaling().getLastDecision().getAction()).isEqualTo("Hold");
              assertThat(s.getAutoscaling().getLastDecision().getReason())
                  .isIn("WithinTargets", "RolloutInProgress");
              assertThat(s.getAutoscaling().getOwner()).isEqualTo("Operator");
            });

    pools.master(name).servingWithSignals(name, 3, 0.9, 1.5);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(pool(name).getSpec().getStorage().getReplicas()).isEqualTo(4);
              assertThat(objects.statefulSet(name + "-storage").getSpec().getReplicas())
                  .isEqualTo(4);
              KvCachePoolStatus s = status(name);
              assertThat(s.getAutoscaling().getDesiredReplicas()).isEqualTo(4);
              // the scaling is the newest of recentScaling; lastDecision may already be the next
              // round's hold
              // (WaitingForNodes: the leader still counts 3 nodes)
              assertThat(s.getAutoscaling().getRecentScaling()).hasSize(1);
              ScalingDecision scaled = s.getAutoscaling().getRecentScaling().get(0);
              assertThat(scaled.getAction()).isEqualTo("ScaleUp");
              assertThat(scaled.getReason()).isEqualTo("TargetExceeded");
              assertThat(scaled.getFromReplicas()).isEqualTo(3);
              assertThat(scaled.getToReplicas()).isEqualTo(4);
              assertThat(scaled.getFullnessPercent()).isEqualTo(90.0);
              assertThat(s.getAutoscaling().getLastDecision().getReason())
                  .isIn("TargetExceeded", "WaitingForNodes");
              assertThat(events.count(name, "StorageAutoscaled")).isEqualTo(1);
            });

    // the new node registers; the pool is at its maximum
    pools.master(name).servingWithSignals(name, 4, 0.95, 0);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () ->
                assertThat(status(name).getAutoscaling().getLastDecision().getReason())
                    .isEqualTo("AtMaximum"));

    // another writer (kubectl scale, an HPA) sets 3: adopted, announced once, held
    client
        .resources(KvCachePool.class)
        .inNamespace(NS)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"storage\":{\"replicas\":3}}}");
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus s = status(name);
              assertThat(s.getAutoscaling().getOwner()).isEqualTo("External");
              assertThat(s.getAutoscaling().getDesiredReplicas()).isEqualTo(3);
              assertThat(s.getAutoscaling().getLastDecision().getReason())
                  .isEqualTo("ExternalOwner");
              assertThat(events.count(name, "AutoscalingYielded")).isEqualTo(1);
            });
    assertThat(pool(name).getSpec().getStorage().getReplicas())
        .as("the other writer's count stays")
        .isEqualTo(3);
    assertThat(events.count(name, "StorageAutoscaled")).isEqualTo(1);
  }
}
