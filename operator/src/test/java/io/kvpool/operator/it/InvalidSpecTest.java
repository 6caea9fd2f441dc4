package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.DiskVolumeClaim;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.operator.common.StatusMessage;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Specs the CRD schema admits but that cannot become valid objects: the operator reports them as
 * InvalidSpec, naming the pool's field, and creates nothing (no half-created set of objects). Then
 * the "Why" case of a pool that never ran: fixed, it is Creating (not Running) until its pods
 * serve, also after its TransferEngine is deleted and recreated and after an operator restart.
 */
@ExtendWith(RealKubeApiServer.class)
class InvalidSpecTest {
  private static final String NS = "pool-invalid";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /**
   * Long enough for several status intervals and retries: what must not change within it, does not.
   */
  private static final Duration STAYS = Duration.ofSeconds(4);

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
    client.resource(TestPools.tcpEngine(NS, "tcp")).create();
  }

  private static KvCachePoolStatus status(String pool) {
    KvCachePool read = client.resources(KvCachePool.class).inNamespace(NS).withName(pool).get();
    return read == null ? null : read.getStatus();
  }

  private static Condition condition(String pool, String type) {
    return Conditions.find(status(pool).getConditions(), type).orElseThrow();
  }

  private static KvCachePool edit(String pool, Consumer<KvCachePool> change) {
    return Edits.edit(client, KvCachePool.class, NS, pool, change);
  }

  private static SchedulingSpec scheduling(Consumer<SchedulingSpec> fill) {
    SchedulingSpec scheduling = new SchedulingSpec();
    fill.accept(scheduling);
    return scheduling;
  }

  /**
   * Waits for InvalidSpec naming {@code field}, then checks that nothing was created for the pool.
   */
  private static void assertRefusedBeforeAnythingIsCreated(String pool, String field) {
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status(pool);
              assertThat(status).isNotNull();
              assertThat(status.getObservedGeneration()).isEqualTo(1);
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Failed);
              Condition degraded = condition(pool, KvCachePoolStatus.DEGRADED);
              assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
              assertThat(degraded.getMessage())
                  .contains(field)
                  .contains("nothing is created until the spec is fixed");
            });
    await().atMost(TIMEOUT).until(() -> events.count(pool, "InvalidSpec") == 1);
    assertThat(objects.existing(pool)).as("objects created for %s", pool).isEmpty();
  }

  /**
   * The "Why" case: nodeSelector {"bad key!": x} degraded a pool that never ran; once fixed it
   * showed Running 0/1 0/3. Now: refused before anything is created, and once fixed Creating with a
   * Recovered Event, and it stays so.
   */
  @Test
  void aPoolThatNeverRanIsCreatingOnceFixedAndStaysSo() {
    KvCachePool pool = TestPools.withEngine(TestPools.pool(NS, "never-ran"), "tcp");
    pool.getSpec().setScheduling(scheduling(s -> s.setNodeSelector(Map.of("bad key!", "x"))));
    client.resource(pool).create();

    assertRefusedBeforeAnythingIsCreated("never-ran", "spec.scheduling.nodeSelector");

    edit("never-ran", p -> p.getSpec().setScheduling(null));

    await().atMost(TIMEOUT).until(() -> objects.allExist("never-ran"));
    await().atMost(TIMEOUT).untilAsserted(() -> assertCreatingWithNoPodReady("never-ran", 2));
    await().atMost(TIMEOUT).until(() -> events.count("never-ran", "Recovered") == 1);
    await()
        .during(STAYS)
        .atMost(STAYS.plusSeconds(5))
        .untilAsserted(() -> assertCreatingWithNoPodReady("never-ran", 2));

    client.resources(TransferEngine.class).inNamespace(NS).withName("tcp").delete();
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(status("never-ran").getPhase()).isEqualTo(PoolPhase.Degraded);
              assertThat(condition("never-ran", KvCachePoolStatus.DEGRADED).getMessage())
                  .contains("TransferEngine 'tcp' does not exist")
                  .contains("the last valid state keeps running");
            });
    client.resource(TestPools.tcpEngine(NS, "tcp")).create();
    await().atMost(TIMEOUT).untilAsserted(() -> assertCreatingWithNoPodReady("never-ran", 2));
    await()
        .during(STAYS)
        .atMost(STAYS.plusSeconds(5))
        .untilAsserted(() -> assertCreatingWithNoPodReady("never-ran", 2));

    pools.restartOperator();
    await()
        .during(STAYS)
        .atMost(STAYS.plusSeconds(5))
        .untilAsserted(() -> assertCreatingWithNoPodReady("never-ran", 2));
    assertThat(events.count("never-ran", "Recovered"))
        .as("one per recovery, none from the restart")
        .isEqualTo(2);
    assertThat(events.count("never-ran", "PoolReady")).isZero();
  }

  private static void assertCreatingWithNoPodReady(String pool, long generation) {
    KvCachePoolStatus status = status(pool);
    assertThat(status.getObservedGeneration()).isEqualTo(generation);
    assertThat(status.getPhase()).isEqualTo(PoolPhase.Creating);
    assertThat(status.getMasters()).isEqualTo("0/1");
    assertThat(status.getStorage()).isEqualTo("0/3");
    assertThat(Conditions.isTrue(status.getConditions(), KvCachePoolStatus.DEGRADED)).isFalse();
    assertThat(Conditions.isTrue(status.getConditions(), KvCachePoolStatus.AVAILABLE)).isFalse();
  }

  @Test
  void anAffinityTheApiServerRefusesIsInvalidForTheMasters() {
    KvCachePool pool = TestPools.pool(NS, "bad-affinity");
    pool.getSpec().setMaster(new io.kvpool.api.v1alpha1.MasterSpec());
    pool.getSpec()
        .getMaster()
        .setScheduling(
            scheduling(
                s ->
                    s.setAffinity(
                        new AffinityBuilder()
                            .withNewNodeAffinity()
                            .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                            .addNewNodeSelectorTerm()
                            .addNewMatchExpression()
                            .withKey("zone")
                            .withOperator("Near")
                            .withValues("a")
                            .endMatchExpression()
                            .endNodeSelectorTerm()
                            .endRequiredDuringSchedulingIgnoredDuringExecution()
                            .endNodeAffinity()
                            .build())));
    client.resource(pool).create();

    assertRefusedBeforeAnythingIsCreated(
        "bad-affinity", "spec.master.scheduling.affinity.nodeAffinity");
  }

  @Test
  void aTolerationTheApiServerRefusesIsInvalid() {
    KvCachePool pool = TestPools.pool(NS, "bad-toleration");
    pool.getSpec()
        .setScheduling(
            scheduling(
                s ->
                    s.setTolerations(
                        List.of(
                            new TolerationBuilder()
                                .withKey("npu")
                                .withOperator("Exists")
                                .withValue("yes")
                                .build()))));
    client.resource(pool).create();

    assertRefusedBeforeAnythingIsCreated("bad-toleration", "spec.scheduling.tolerations[0]");
  }

  @Test
  void aResourceNameTheApiServerRefusesIsInvalid() {
    KvCachePool pool = TestPools.pool(NS, "bad-resource");
    pool.getSpec()
        .getStorage()
        .setResources(
            io.kvpool.api.v1alpha1.ComputeResources.of(
                Map.of("nvidia gpu", new io.fabric8.kubernetes.api.model.Quantity("1")), null));
    client.resource(pool).create();

    assertRefusedBeforeAnythingIsCreated("bad-resource", "spec.storage.resources");
  }

  /** The "Why" case of a storage port equal to the TransferEngine's port. */
  @Test
  void aStoragePortEqualToTheTransferPortIsInvalid() {
    client.resource(TestPools.tcpEngine(NS, "clash")).create();
    KvCachePool pool = TestPools.withEngine(TestPools.pool(NS, "port-clash"), "clash");
    pool.getSpec().getStorage().setPort(50060);
    client.resource(pool).create();

    assertRefusedBeforeAnythingIsCreated(
        "port-clash", "spec.storage.port (50060) equals spec.port of" + " TransferEngine 'clash'");
  }

  /**
   * A running pool changed to an invalid spec: the generation is observed, the live objects stay as
   * they are, and the message of 64 refused node-selector keys is one bounded line (as every status
   * message and Event here).
   */
  /**
   * The schema refuses changing a stored pool's disk claim, but not adding one to a pool stored
   * without a disk tier: the API server refuses the StatefulSet's new claim template, and the pool
   * keeps running as it was.
   */
  @Test
  void aDiskClaimAddedToARunningPoolIsInvalidAndTheLastStateKeepsRunning() {
    client.resource(TestPools.pool(NS, "claimed")).create();
    await().atMost(TIMEOUT).until(() -> objects.allExist("claimed"));
    String storageVersion =
        objects.statefulSet("claimed-storage").getMetadata().getResourceVersion();

    edit(
        "claimed",
        p -> {
          DiskTierSpec disk = new DiskTierSpec();
          disk.setSize(new Quantity("1Gi"));
          disk.setVolumeClaim(new DiskVolumeClaim());
          p.getSpec().getStorage().setDisk(disk);
        });

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status("claimed");
              assertThat(status.getObservedGeneration()).isEqualTo(2);
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
              Condition degraded = condition("claimed", KvCachePoolStatus.DEGRADED);
              assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
              assertThat(degraded.getMessage())
                  .contains("spec.storage.disk.volumeClaim")
                  .contains("the last valid state keeps running");
            });
    assertThat(objects.statefulSet("claimed-storage").getMetadata().getResourceVersion())
        .isEqualTo(storageVersion);
  }

  @Test
  void anInvalidChangeIsObservedKeepsTheObjectsAndEveryMessageIsBounded() {
    client.resource(TestPools.pool(NS, "changed")).create();
    await().atMost(TIMEOUT).until(() -> objects.allExist("changed"));
    String storageVersion =
        objects.statefulSet("changed-storage").getMetadata().getResourceVersion();
    Map<String, String> badKeys = new LinkedHashMap<>();
    for (int i = 0; i < 64; i++) {
      badKeys.put("bad key number " + i + "!", "value " + i);
    }

    edit("changed", p -> p.getSpec().setScheduling(scheduling(s -> s.setNodeSelector(badKeys))));

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = status("changed");
              assertThat(status.getObservedGeneration()).isEqualTo(2);
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
              assertThat(condition("changed", KvCachePoolStatus.DEGRADED).getMessage())
                  .startsWith("spec.scheduling.nodeSelector")
                  .contains("the last valid state keeps running")
                  .hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH);
            });
    await().atMost(TIMEOUT).until(() -> events.count("changed", "InvalidSpec") == 1);
    assertThat(objects.statefulSet("changed-storage").getMetadata().getResourceVersion())
        .isEqualTo(storageVersion);

    for (KvCachePool each : client.resources(KvCachePool.class).inNamespace(NS).list().getItems()) {
      if (each.getStatus() == null) {
        continue;
      }
      assertThat(each.getStatus().getMessage())
          .as(each.getMetadata().getName())
          .hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH);
      assertThat(each.getStatus().getConditions())
          .allSatisfy(
              c ->
                  assertThat(c.getMessage())
                      .as("%s %s", each.getMetadata().getName(), c.getType())
                      .hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH)
                      .doesNotContain("\n"));
    }
    assertThat(events.all())
        .isNotEmpty()
        .allSatisfy(
            e ->
                assertThat(e.getMessage())
                    .as(e.getReason())
                    .hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH)
                    .doesNotContain("\n"));
  }
}
