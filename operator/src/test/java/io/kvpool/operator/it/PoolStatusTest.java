package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.testkube.RealKubeApiServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Pool status from real parts: StatefulSet readiness as the (absent) StatefulSet controller would write it, and
 * the figures from a real master process on 127.0.0.1 with real storage nodes registered. Then the master is
 * killed and the pool must say so.
 */
@ExtendWith(RealKubeApiServer.class)
class PoolStatusTest {
  private static final String NS = "pool-status";
  private static final String POOL = "live";
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private static KubernetesClient client;
  private static final List<DataPlaneProcess> processes = new ArrayList<>();
  private static DataPlaneProcess master;
  private static TestOperator operator;

  @BeforeAll
  static void start(KubernetesClient kubernetes) throws IOException, InterruptedException {
    client = kubernetes;
    client.resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).serverSideApply();
    master = DataPlaneProcess.master(POOL);
    processes.add(master);
    for (int i = 0; i < 3; i++) {
      processes.add(DataPlaneProcess.storage(master.rpc(), POOL + "-storage-" + i, "64MiB"));
    }
    // Real objects, so used and objectCount are not just zeros: 3 × 1 MiB, 2 replicas each.
    Path value = Files.createTempFile("kvpool-value", ".bin");
    try {
      Files.write(value, new byte[1 << 20]);
      for (int i = 0; i < 3; i++) {
        DataPlaneProcess.cli("put", "--master", master.rpc(), "block-" + i, "--file", value.toString(),
            "--replicas", "2");
      }
    } finally {
      Files.deleteIfExists(value);
    }
    // The pool's leader Service is a cluster address; the test resolves it to the master process instead.
    operator = TestOperator.start(NS, pool -> master.adminBase());
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (operator != null) {
      operator.close();
    }
    for (DataPlaneProcess process : processes) {
      process.close();
    }
  }

  private static KvCachePoolStatus status() {
    KvCachePool pool = client.resources(KvCachePool.class).inNamespace(NS).withName(POOL).get();
    return pool == null ? null : pool.getStatus();
  }

  @Test
  void readyWithTheMastersFiguresThenDegradedWhenTheMasterDies() throws Exception {
    client.resource(TestPools.pool(NS, POOL)).create();
    PoolObjects objects = new PoolObjects(client, NS);
    await().atMost(TIMEOUT).until(() -> objects.allExist(POOL));
    // What the kubelet and the elected master would do: pods exist and the leader labelled its own.
    client.resource(new PodBuilder().withNewMetadata().withName(POOL + "-master-0").withNamespace(NS)
        .addToLabels("app.kubernetes.io/name", "kvpool").addToLabels("app.kubernetes.io/instance", POOL)
        .addToLabels("app.kubernetes.io/component", "master").addToLabels("kvpool.io/role", "leader")
        .endMetadata()
        .withNewSpec().withServiceAccountName(POOL + "-master").withAutomountServiceAccountToken(false)
        .addNewContainer().withName("master").withImage("kvpool/data-plane:0.1.0").endContainer().endSpec()
        .build()).create();
    objects.markReady(POOL + "-master");
    objects.markReady(POOL + "-storage");

    await().atMost(TIMEOUT).untilAsserted(() -> {
      KvCachePoolStatus status = status();
      assertThat(status.getPhase()).isEqualTo(PoolPhase.Running);
      assertThat(Conditions.isTrue(status.getConditions(), "Ready")).isTrue();
      assertThat(status.getObjectCount()).isNotNull();
      assertThat(status.getCapacity()).isEqualTo("192Mi");
    });
    KvCachePoolStatus ready = status();
    assertThat(ready.getMasters()).isEqualTo("1/1");
    assertThat(ready.getStorage()).isEqualTo("3/3");
    assertThat(ready.getStorageReadyReplicas()).isEqualTo(3);
    assertThat(ready.getLeader()).isEqualTo(POOL + "-master-0");
    assertThat(ready.getCurrentVersion()).isEqualTo("0.1.0");
    assertThat(ready.getUsed()).isEqualTo("6Mi");
    assertThat(ready.getObjectCount()).isEqualTo(3);
    assertThat(ready.getUsedRatio()).isEqualTo(0.031);
    assertThat(ready.getObservedGeneration()).isEqualTo(1);
    assertThat(ready.getStorageSelector()).contains("app.kubernetes.io/component=storage");
    for (String type : List.of("Ready", "Available")) {
      assertThat(Conditions.isTrue(ready.getConditions(), type)).as(type).isTrue();
    }
    assertThat(Conditions.isTrue(ready.getConditions(), "Degraded")).isFalse();
    assertThat(Conditions.isTrue(ready.getConditions(), "Progressing")).isFalse();

    String table = Kubectl.run("get", "kvcachepools", "-n", NS, "-o", "wide");
    System.out.println("kubectl get kvcachepools -o wide (ready):\n" + table);
    assertThat(table).contains("PHASE", "VERSION", "LEADER", "MASTERS", "STORAGE", "CAPACITY", "USED", "OBJECTS")
        .contains("Running").contains(POOL + "-master-0").contains("192Mi").contains("6Mi");
    assertThat(events("PoolReady")).isEqualTo(1);

    master.kill();

    await().atMost(TIMEOUT).untilAsserted(() -> {
      KvCachePoolStatus status = status();
      assertThat(status.getPhase()).isEqualTo(PoolPhase.Degraded);
      var degraded = Conditions.find(status.getConditions(), "Degraded").orElseThrow();
      assertThat(degraded.getStatus()).isEqualTo("True");
      assertThat(degraded.getReason()).isEqualTo("MasterUnreachable");
      assertThat(degraded.getMessage()).contains(master.adminBase() + "/status");
    });
    System.out.println("kubectl get kvcachepools -o wide (master killed):\n"
        + Kubectl.run("get", "kvcachepools", "-n", NS, "-o", "wide"));
    // Several status cycles later the transition is still announced exactly once.
    Thread.sleep(TestOperator.STATUS_INTERVAL.multipliedBy(3).toMillis());
    assertThat(events("MasterUnreachable")).isEqualTo(1);
    assertThat(events("PoolReady")).isEqualTo(1);
  }

  private static long events(String reason) {
    return client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> POOL.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
        .count();
  }
}
