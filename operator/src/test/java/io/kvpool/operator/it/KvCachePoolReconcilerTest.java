package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.kvpool.api.v1alpha1.BufferPoolSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.testkube.RealKubeApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The pool controller against a real kube-apiserver + etcd. No kubelet, scheduler or
 * controller-manager run there: pods never start, StatefulSet status stays empty unless a test
 * writes it, and no garbage collector deletes dependents of a deleted owner.
 */
@ExtendWith(RealKubeApiServer.class)
class KvCachePoolReconcilerTest {
  private static final String NS = "pool-reconcile";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @RegisterExtension static final OperatorNamespace pools = new OperatorNamespace(NS);

  private static KubernetesClient client;
  private static PoolObjects objects;

  @BeforeAll
  static void startOperator(KubernetesClient kubernetes) {
    client = kubernetes;
    pools.startWithoutMasters(kubernetes);
    objects = new PoolObjects(client, NS);
  }

  private static KvCachePool create(KvCachePool pool) {
    return client.resource(pool).create();
  }

  private static KvCachePool read(String name) {
    return client.resources(KvCachePool.class).inNamespace(NS).withName(name).get();
  }

  private static void awaitObjects(String pool) {
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> objects.allExist(pool));
  }

  @Test
  void createsEveryObjectOwnedLabelledAndWithAscendDevices() {
    client
        .resource(new NodeBuilder().withNewMetadata().withName("npu-node-1").endMetadata().build())
        .serverSideApply();
    client
        .nodes()
        .withName("npu-node-1")
        .editStatus(
            node -> {
              node.setStatus(
                  new io.fabric8.kubernetes.api.model.NodeStatusBuilder()
                      .addToAllocatable("huawei.com/Ascend910", new Quantity("8"))
                      .addToCapacity("huawei.com/Ascend910", new Quantity("8"))
                      .build());
              return node;
            });
    client.resource(TestPools.ascendEngine(NS, "npu", "huawei.com/Ascend910", 2)).create();
    KvCachePool pool = create(TestPools.withEngine(TestPools.pool(NS, "ascend"), "npu"));

    awaitObjects("ascend");

    Map<String, HasMetadata> all = objects.all("ascend");
    for (Map.Entry<String, HasMetadata> entry : all.entrySet()) {
      HasMetadata object = entry.getValue();
      assertThat(object.getMetadata().getOwnerReferences())
          .as(entry.getKey())
          .singleElement()
          .satisfies(
              owner -> {
                assertThat(owner.getKind()).isEqualTo("KvCachePool");
                assertThat(owner.getName()).isEqualTo("ascend");
                assertThat(owner.getUid()).isEqualTo(pool.getMetadata().getUid());
                assertThat(owner.getController()).isTrue();
              });
      assertThat(object.getMetadata().getLabels())
          .as(entry.getKey())
          .containsEntry("app.kubernetes.io/name", "kvpool")
          .containsEntry("app.kubernetes.io/instance", "ascend")
          .containsEntry("kvpool.io/pool", "ascend");
    }

    StatefulSet storage = objects.statefulSet("ascend-storage");
    assertThat(storage.getMetadata().getLabels())
        .containsEntry("app.kubernetes.io/component", "storage")
        .containsEntry("app.kubernetes.io/version", "0.1.0");
    assertThat(storage.getSpec().getReplicas()).isEqualTo(3);
    Container container = storage.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getResources().getRequests())
        .containsEntry("huawei.com/Ascend910", new Quantity("2"));
    assertThat(container.getResources().getLimits())
        .containsEntry("huawei.com/Ascend910", new Quantity("2"))
        .containsEntry("memory", new Quantity("768Mi"));
    assertThat(container.getVolumeMounts())
        .extracting(m -> m.getMountPath())
        .contains(
            "/usr/local/Ascend/driver",
            "/usr/local/dcmi",
            "/usr/local/bin/npu-smi",
            "/etc/ascend_install.info",
            "/etc/hccn.conf");
    assertThat(container.getEnv())
        .extracting(e -> e.getName() + "=" + e.getValue())
        .contains(
            "KVPOOL_VISIBLE_DEVICES_ENV=ASCEND_VISIBLE_DEVICES",
            "KVPOOL_TRANSPORT_PROTOCOL=ascend");
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
    assertThat(storage.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("kvpool.io/release", "0.1.0");

    StatefulSet master = objects.statefulSet("ascend-master");
    assertThat(master.getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo("ascend-master");
    assertThat(
            String.join(
                " ", master.getSpec().getTemplate().getSpec().getContainers().get(0).getCommand()))
        .contains("io.kvpool.master.MasterMain");
    assertThat(
            client
                .services()
                .inNamespace(NS)
                .withName("ascend-master")
                .get()
                .getSpec()
                .getSelector())
        .containsEntry("kvpool.io/role", "leader");
    assertThat(objects.configMap("ascend-client").getData())
        .containsEntry(
            "KVPOOL_MASTER_ADDRESS", "ascend-master-0.ascend-master-peers.pool-reconcile.svc:50051")
        .containsEntry("KVPOOL_MASTER_ADMIN_ADDRESS", "ascend-master.pool-reconcile.svc:8080")
        .containsEntry("KVPOOL_TRANSPORT_PROTOCOL", "ascend");

    // The engine's own status: who uses it, and that a node advertises the device.
    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              TransferEngine engine =
                  client.resources(TransferEngine.class).inNamespace(NS).withName("npu").get();
              assertThat(engine.getStatus()).isNotNull();
              assertThat(engine.getStatus().getPools()).contains("ascend");
              assertThat(engine.getStatus().getDeviceResourceAdvertised()).isTrue();
              assertThat(engine.getStatus().getNodesWithDevice()).isEqualTo(1);
              assertThat(Conditions.isTrue(engine.getStatus().getConditions(), "DevicesAvailable"))
                  .isTrue();
            });
  }

  @Test
  void dependentsOfOneKindShareOneInformer() {
    Map<Class<?>, Long> informersByKind =
        pools.operator().poolInformers().stream()
            .collect(
                Collectors.groupingBy(InformerEventSource::resourceType, Collectors.counting()));

    assertThat(informersByKind)
        .containsOnly(
            Map.entry(ServiceAccount.class, 1L),
            Map.entry(Role.class, 1L),
            Map.entry(RoleBinding.class, 1L),
            Map.entry(ConfigMap.class, 1L),
            Map.entry(Service.class, 1L),
            Map.entry(StatefulSet.class, 1L),
            Map.entry(PodDisruptionBudget.class, 1L),
            Map.entry(TransferEngine.class, 1L),
            Map.entry(Pod.class, 1L),
            Map.entry(Secret.class, 1L),
            Map.entry(NetworkPolicy.class, 1L));
  }

  @Test
  void scalingStorageChangesOnlyTheStorageStatefulSetReplicas() throws Exception {
    create(TestPools.pool(NS, "scale"));
    awaitObjects("scale");
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                read("scale").getStatus() != null
                    && Long.valueOf(1).equals(read("scale").getStatus().getObservedGeneration()));
    Map<String, String> before = resourceVersions("scale");
    StatefulSet storageBefore = objects.statefulSet("scale-storage");

    // Through the pool's scale subresource, as kubectl scale kvp scale --replicas=5 does.
    client.resources(KvCachePool.class).inNamespace(NS).withName("scale").scale(5);

    await()
        .atMost(TIMEOUT)
        .until(() -> objects.statefulSet("scale-storage").getSpec().getReplicas() == 5);
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                Long.valueOf(2).equals(read("scale").getStatus().getObservedGeneration())
                    && "0/5".equals(read("scale").getStatus().getStorage()));
    String poolVersion = read("scale").getMetadata().getResourceVersion();
    // A few more status cycles: nothing may drift afterwards, and an unchanged status is not
    // patched again.
    Thread.sleep(TestOperator.STATUS_INTERVAL.multipliedBy(3).toMillis());
    assertThat(read("scale").getMetadata().getResourceVersion()).isEqualTo(poolVersion);
    Map<String, String> after = resourceVersions("scale");
    StatefulSet storageAfter = objects.statefulSet("scale-storage");

    Map<String, String> changed =
        before.entrySet().stream()
            .filter(e -> !e.getValue().equals(after.get(e.getKey())))
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    assertThat(changed.keySet()).containsExactly("StatefulSet/scale-storage");
    assertThat(storageAfter.getSpec().getTemplate())
        .isEqualTo(storageBefore.getSpec().getTemplate());
    assertThat(storageAfter.getMetadata().getGeneration())
        .isEqualTo(storageBefore.getMetadata().getGeneration() + 1);
  }

  @Test
  void changingTheTransferEngineUpdatesItsPoolsConfig() {
    client.resource(TestPools.tcpEngine(NS, "tcp-fast")).create();
    create(TestPools.withEngine(TestPools.pool(NS, "follow"), "tcp-fast"));
    awaitObjects("follow");
    assertThat(objects.configMap("follow-client").getData()).containsEntry("KVPOOL_BUFFERS", "8");

    Edits.edit(
        client,
        TransferEngine.class,
        NS,
        "tcp-fast",
        engine -> {
          BufferPoolSpec buffers = new BufferPoolSpec();
          buffers.setSize(new Quantity("1Gi"));
          buffers.setBuffers(32);
          engine.getSpec().setBufferPool(buffers);
          engine.getSpec().setPort(50070);
        });

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              assertThat(objects.configMap("follow-client").getData())
                  .containsEntry("KVPOOL_BUFFERS", "32")
                  .containsEntry("KVPOOL_BUFFER_POOL_SIZE", Long.toString(1L << 30))
                  .containsEntry("KVPOOL_TRANSPORT_PORT", "50070");
              assertThat(
                      client
                          .services()
                          .inNamespace(NS)
                          .withName("follow-storage")
                          .get()
                          .getSpec()
                          .getPorts())
                  .anySatisfy(p -> assertThat(p.getPort()).isEqualTo(50070));
            });
  }

  @Test
  void anImageChangeWithoutVersionChangeKeepsTheLastValidObjectsAndSaysWhy() {
    create(TestPools.pool(NS, "guarded"));
    awaitObjects("guarded");
    String rvBefore = objects.statefulSet("guarded-master").getMetadata().getResourceVersion();

    Edits.edit(
        client,
        KvCachePool.class,
        NS,
        "guarded",
        p -> p.getSpec().setImage("elsewhere/data-plane:0.1.0"));

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = read("guarded").getStatus();
              assertThat(status.getObservedGeneration()).isEqualTo(2);
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
              var degraded = Conditions.find(status.getConditions(), "Degraded").orElseThrow();
              assertThat(degraded.getReason()).isEqualTo("InvalidSpec");
              assertThat(degraded.getMessage())
                  .contains(
                      "spec.image changed from kvpool/data-plane:0.1.0 to"
                          + " elsewhere/data-plane:0.1.0");
            });
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                client.v1().events().inNamespace(NS).list().getItems().stream()
                    .anyMatch(
                        e ->
                            "guarded".equals(e.getInvolvedObject().getName())
                                && "InvalidSpec".equals(e.getReason())
                                && "Warning".equals(e.getType())));
    StatefulSet master = objects.statefulSet("guarded-master");
    assertThat(master.getMetadata().getResourceVersion()).isEqualTo(rvBefore);
    assertThat(master.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("kvpool/data-plane:0.1.0");
  }

  @Test
  void aMissingTransferEngineIsReportedAndNothingIsCreated() {
    create(TestPools.withEngine(TestPools.pool(NS, "orphan"), "does-not-exist"));

    await()
        .atMost(TIMEOUT)
        .untilAsserted(
            () -> {
              KvCachePoolStatus status = read("orphan").getStatus();
              assertThat(status).isNotNull();
              assertThat(status.getPhase()).isEqualTo(PoolPhase.Failed);
              assertThat(
                      Conditions.find(status.getConditions(), "Degraded")
                          .orElseThrow()
                          .getMessage())
                  .contains(
                      "TransferEngine 'does-not-exist' does not exist in namespace 'pool-reconcile'");
            });
    assertThat(objects.statefulSet("orphan-master")).isNull();
  }

  /**
   * Deleting a pool is not blocked (no finalizer) and leaves its objects to Kubernetes' garbage
   * collector, which a bare API server lacks: the test checks what the collector acts on, the owner
   * references.
   */
  @Test
  void deletingThePoolLeavesEveryObjectToTheGarbageCollector() {
    KvCachePool pool = create(TestPools.pool(NS, "doomed"));
    awaitObjects("doomed");

    client.resource(pool).delete();

    await().atMost(TIMEOUT).until(() -> read("doomed") == null);
    for (Map.Entry<String, HasMetadata> entry : objects.all("doomed").entrySet()) {
      OwnerReference owner = entry.getValue().getMetadata().getOwnerReferences().get(0);
      assertThat(owner.getUid()).as(entry.getKey()).isEqualTo(pool.getMetadata().getUid());
      assertThat(owner.getBlockOwnerDeletion()).as(entry.getKey()).isTrue();
    }
  }

  private static Map<String, String> resourceVersions(String pool) {
    return objects.all(pool).entrySet().stream()
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, e -> e.getValue().getMetadata().getResourceVersion()));
  }
}
