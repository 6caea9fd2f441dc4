package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.api.v1alpha1.FailingPod;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Readiness from what is observed now, against the real API server: StatefulSet status written as
 * the StatefulSet controller would, pod status as the kubelet and scheduler would, and a leader's
 * /status served by a {@link FakeMaster} that counts as many storage nodes alive as the test says.
 */
@ExtendWith(RealKubeApiServer.class)
class PoolReadinessTest {
  private static final String NS = "pool-readiness";
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

  private static KvCachePoolStatus status(String pool) {
    return client.resources(KvCachePool.class).inNamespace(NS).withName(pool).get().getStatus();
  }

  private static Condition condition(String pool, String type) {
    return Conditions.find(status(pool).getConditions(), type).orElseThrow();
  }

  private static void create(String pool) {
    client.resource(TestPools.pool(NS, pool)).create();
    await().atMost(TIMEOUT).until(() -> objects.allExist(pool));
  }

  @Test
  void runningOnlyOnceTheLeaderCountsEnoughStorageNodesAlive() {
    create("alive");
    pools.master("alive").serving("alive", 0);
    objects.markReady("alive-master");
    objects.markReady("alive-storage");

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(status("alive").getMasters()).isEqualTo("1/1");
              assertThat(status("alive").getStorage()).isEqualTo("3/3");
              assertThat(status("alive").getPhase())
                  .as("pods ready, no node registered")
                  .isEqualTo(PoolPhase.Creating);
              assertThat(condition("alive", "Ready").getReason()).isEqualTo("StorageNotRegistered");
              assertThat(condition("alive", "Available").getReason())
                  .isEqualTo("TooFewStorageNodes");
            });

    pools.master("alive").serving("alive", 2);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(status("alive").getPhase()).isEqualTo(PoolPhase.Running);
              assertThat(condition("alive", "Ready").getMessage())
                  .isEqualTo("the leader counts 2 of 3 storage nodes alive");
            });

    pools.master("alive").serving("alive", 3);
    await()
        .atMost(TIMEOUT)
        .until(() -> Conditions.isTrue(status("alive").getConditions(), "Ready"));
    await().atMost(TIMEOUT).until(() -> events.count("alive", "PoolReady") == 1);
  }

  /**
   * A condition's lastTransitionTime moves only when its status does, here on the real API server:
   * the Ready condition's message follows the ready count while it stays False. And the "Why" case
   * where kubectl kept showing Running 3/3 with no storage pod ready: the columns follow what is
   * observed.
   */
  @Test
  void transitionTimesMoveOnlyWithTheStatusAndTheColumnsFollowThePods() throws Exception {
    create("steady");
    pools.master("steady").serving("steady", 3);
    objects.markReady("steady-master");
    objects.markReady("steady-storage");
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                status("steady").getPhase() == PoolPhase.Running
                    && Conditions.isTrue(status("steady").getConditions(), "Ready"));
    String availableSince = condition("steady", "Available").getLastTransitionTime();

    objects.markReady("steady-storage", 2);
    await()
        .atMost(TIMEOUT)
        .until(() -> "2/3 storage nodes ready".equals(condition("steady", "Ready").getMessage()));
    String notReadySince = condition("steady", "Ready").getLastTransitionTime();

    objects.markReady("steady-storage", 1);
    await()
        .atMost(TIMEOUT)
        .until(() -> "1/3 storage nodes ready".equals(condition("steady", "Ready").getMessage()));
    assertThat(condition("steady", "Ready").getLastTransitionTime()).isEqualTo(notReadySince);
    assertThat(Instant.parse(notReadySince)).isAfterOrEqualTo(Instant.parse(availableSince));

    objects.markReady("steady-storage", 0);
    pools.master("steady").serving("steady", 0);
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(status("steady").getStorage()).isEqualTo("0/3");
              assertThat(status("steady").getStorageReadyReplicas()).isZero();
              assertThat(status("steady").getPhase()).isNotEqualTo(PoolPhase.Running);
              assertThat(condition("steady", "Available").getStatus()).isEqualTo("False");
            });
    assertThat(condition("steady", "Ready").getLastTransitionTime()).isEqualTo(notReadySince);
    String table = Kubectl.run("get", "kvcachepools", "steady", "-n", NS);
    System.out.println("kubectl get kvcachepools (no storage pod ready):\n" + table);
    assertThat(table).doesNotContain("Running").contains("1/1").contains("0/3");
  }

  /** As Keycloak's operator does: the pool names the pods that cannot start and why. */
  @Test
  void podsThatCannotStartAreNamedWithTheKubeletsAndSchedulersReason() {
    create("stuck");
    objects.markReady("stuck-master", 0);
    objects.markReady("stuck-storage", 1);
    Pod pulling = podOf("stuck-storage", 1);
    Pod unschedulable = podOf("stuck-storage", 2);
    Pod crashing = podOf("stuck-master", 0);

    writeStatus(
        pulling,
        new PodBuilder(pulling)
            .editOrNewStatus()
            .withPhase("Pending")
            .withContainerStatuses(
                new ContainerStatusBuilder()
                    .withName("storage")
                    .withReady(false)
                    .withNewState()
                    .withNewWaiting()
                    .withReason("ImagePullBackOff")
                    .withMessage("Back-off pulling image \"kvpool/data-plane:0.1.0\": not found")
                    .endWaiting()
                    .endState()
                    .build())
            .endStatus()
            .build());
    writeStatus(
        unschedulable,
        new PodBuilder(unschedulable)
            .editOrNewStatus()
            .withPhase("Pending")
            .withConditions(
                new PodConditionBuilder()
                    .withType("PodScheduled")
                    .withStatus("False")
                    .withReason("Unschedulable")
                    .withMessage("0/4 nodes are available: 4 Insufficient memory.")
                    .build())
            .endStatus()
            .build());
    writeStatus(
        crashing,
        new PodBuilder(crashing)
            .editOrNewStatus()
            .withPhase("Running")
            .withContainerStatuses(
                new ContainerStatusBuilder()
                    .withName("master")
                    .withReady(false)
                    .withRestartCount(4)
                    .withNewState()
                    .withNewWaiting()
                    .withReason("CrashLoopBackOff")
                    .withMessage("back-off 1m20s restarting failed container=master")
                    .endWaiting()
                    .endState()
                    .withNewLastState()
                    .withNewTerminated()
                    .withReason("Error")
                    .withExitCode(1)
                    .endTerminated()
                    .endLastState()
                    .build())
            .endStatus()
            .build());

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status("stuck");
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
              assertThat(status.getFailingPods())
                  .containsExactly(
                      FailingPod.of(
                          "stuck-master-0",
                          "CrashLoopBackOff",
                          "back-off 1m20s restarting failed container=master; last exit: Error with code 1"),
                      FailingPod.of(
                          "stuck-storage-1",
                          "ImagePullBackOff",
                          "Back-off pulling image \"kvpool/data-plane:0.1.0\": not found"),
                      FailingPod.of(
                          "stuck-storage-2",
                          "Unschedulable",
                          "0/4 nodes are available: 4 Insufficient memory."));
              assertThat(condition("stuck", "Degraded").getReason()).isEqualTo("PodsFailing");
              assertThat(condition("stuck", "Degraded").getMessage())
                  .startsWith("3 pods cannot start: stuck-master-0" + " CrashLoopBackOff");
            });
    await().atMost(TIMEOUT).until(() -> events.count("stuck", "PodsFailing") == 1);

    client.pods().inNamespace(NS).withName("stuck-storage-1").delete();
    client.pods().inNamespace(NS).withName("stuck-storage-2").delete();
    client.pods().inNamespace(NS).withName("stuck-master-0").delete();

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(status("stuck").getFailingPods()).isNull();
              assertThat(condition("stuck", "Degraded").getStatus()).isEqualTo("False");
            });
    await().atMost(TIMEOUT).until(() -> events.count("stuck", "Recovered") == 1);
  }

  /** The pod the StatefulSet controller would create from the pool's template. */
  private static Pod podOf(String statefulSet, int ordinal) {
    StatefulSet sts = objects.statefulSet(statefulSet);
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(statefulSet + "-" + ordinal)
            .withNamespace(NS)
            .withLabels(sts.getSpec().getTemplate().getMetadata().getLabels())
            .withAnnotations(sts.getSpec().getTemplate().getMetadata().getAnnotations())
            .endMetadata()
            .withSpec(sts.getSpec().getTemplate().getSpec())
            .build();
    return client.resource(pod).create();
  }

  private static void writeStatus(Pod pod, Pod withStatus) {
    client
        .pods()
        .inNamespace(NS)
        .withName(pod.getMetadata().getName())
        .editStatus(
            current -> {
              current.setStatus(withStatus.getStatus());
              return current;
            });
  }
}
