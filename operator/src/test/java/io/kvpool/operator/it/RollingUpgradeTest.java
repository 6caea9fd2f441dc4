package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolStatus;
import io.kvpool.api.v1alpha1.MasterSpec;
import io.kvpool.api.v1alpha1.PoolPhase;
import io.kvpool.api.v1alpha1.RolloutPhase;
import io.kvpool.api.v1alpha1.UpgradeFailurePolicy;
import io.kvpool.api.v1alpha1.UpgradeSpec;
import io.kvpool.api.v1alpha1.UpgradeStatus;
import io.kvpool.api.v1alpha1.WarmRestartSpec;
import io.kvpool.client.ClientConfig;
import io.kvpool.client.KvPoolClient;
import io.kvpool.common.HostPort;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import io.kvpool.testkube.RealKubeApiServer;
import io.kvpool.testkube.kubelet.DataPlaneImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Rollouts of pools that run as real data-plane processes (the test kubelet plays kubelet and
 * StatefulSet controller over the real API server; two tags of one build are two releases): one pod
 * at a time in the planned order with drains and a step-down, warm restarts that keep the replicas,
 * a major version refused with nothing restarted, an operator restarted mid-rollout, a step that
 * never becomes ready (paused, then rolled back), and a scale-down that drains first. Every object
 * written before is read back after, byte for byte.
 */
@ExtendWith(RealKubeApiServer.class)
class RollingUpgradeTest {
  private static final String NS = "upgrades";
  private static final Duration TIMEOUT = Duration.ofMinutes(6);

  /**
   * An image that passes the version check but whose storage nodes never start (no memory folder
   * can be made).
   */
  private static final String BROKEN = "1.3.0";

  @RegisterExtension static final PoolPods pods = new PoolPods(NS);

  private static KubernetesClient client;
  private static Path memoryRoot;
  private static String currentPool;

  @BeforeAll
  static void start(KubernetesClient kubernetes) throws IOException {
    client = kubernetes;
    pods.start(
        kubernetes,
        Map.ofEntries(
            DataPlaneImage.tagged("1.0.0"),
            DataPlaneImage.tagged("1.1.0"),
            DataPlaneImage.tagged("1.2.0"),
            DataPlaneImage.tagged("2.0.0"),
            DataPlaneImage.tagged(
                BROKEN, Map.of("KVPOOL_MEMORY_DIR", "/proc/kvpool-no-memory-folder"))));
    Path shm = Path.of("/dev/shm");
    memoryRoot =
        Files.isWritable(shm)
            ? Files.createTempDirectory(shm, "kvpool-it-")
            : Files.createTempDirectory("kvpool-it-");
  }

  @AfterAll
  static void stop() throws IOException {
    removePool();
    if (memoryRoot != null) {
      try (Stream<Path> files = Files.walk(memoryRoot)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * No garbage collector runs here: the previous test's pool, its objects and pods go by hand
   * (before the next test, so that a failed test's diagnostics still see them).
   */
  @BeforeEach
  void removePreviousPool() {
    removePool();
  }

  private static void removePool() {
    if (currentPool == null) {
      return;
    }
    client.resources(KvCachePool.class).inNamespace(NS).withName(currentPool).delete();
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () ->
                client.resources(KvCachePool.class).inNamespace(NS).withName(currentPool).get()
                    == null);
    // an operator that had not yet seen the pool deleted may have made a deleted StatefulSet
    // again, and the test's StatefulSet controller a deleted pod: each poll deletes what is left
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              client
                  .apps()
                  .statefulSets()
                  .inNamespace(NS)
                  .withLabel("app.kubernetes.io/instance", currentPool)
                  .delete();
              client
                  .pods()
                  .inNamespace(NS)
                  .withLabel("app.kubernetes.io/instance", currentPool)
                  .delete();
              return client
                      .apps()
                      .statefulSets()
                      .inNamespace(NS)
                      .withLabel("app.kubernetes.io/instance", currentPool)
                      .list()
                      .getItems()
                      .isEmpty()
                  && client
                      .pods()
                      .inNamespace(NS)
                      .withLabel("app.kubernetes.io/instance", currentPool)
                      .list()
                      .getItems()
                      .isEmpty();
            });
    currentPool = null;
  }

  @Test
  void anUpgradeReplacesOnePodAtATimeDrainingStorageNodesAndSteppingTheLeaderDownAndLosesNoObject()
      throws Exception {
    String name = "rolling";
    createRunning(name, "1.0.0", 3, 4, pool -> {});
    Map<String, byte[]> values = values(600, 1);
    put(name, 3, values);
    String leader = pods.status(name).getLeader();

    Instant started = Instant.now();
    try (RolloutRecorder recorder = new RolloutRecorder(client, NS, name)) {
      edit(name, pool -> pool.getSpec().setVersion("1.1.0"));
      UpgradeStatus done = awaitRollout(name, "1.1.0", 7);
      Duration took = Duration.between(started, Instant.now());

      List<String> standbys =
          new ArrayList<>(List.of(name + "-master-0", name + "-master-1", name + "-master-2"));
      standbys.remove(leader);
      standbys.sort(Comparator.reverseOrder());
      List<String> order =
          new ArrayList<>(
              List.of(
                  name + "-storage-3",
                  name + "-storage-2",
                  name + "-storage-1",
                  name + "-storage-0"));
      order.addAll(standbys);
      order.add(leader);
      assertThat(recorder.deletedPods())
          .as("pods replaced, in order, each once")
          .containsExactlyElementsOf(order);
      List<String> steps =
          recorder
              .events(Set.of("DrainingStorageNode", "ReplacingPod", "LeaderSteppingDown"))
              .stream()
              .map(e -> e.substring(0, e.indexOf(':')) + " " + firstPod(e, name))
              .toList();
      List<String> expected = new ArrayList<>();
      for (int i = 3; i >= 0; i--) {
        expected.add("DrainingStorageNode " + name + "-storage-" + i);
        expected.add("ReplacingPod " + name + "-storage-" + i);
      }
      standbys.forEach(s -> expected.add("ReplacingPod " + s));
      expected.add("LeaderSteppingDown " + leader);
      expected.add("ReplacingPod " + leader);
      assertThat(steps)
          .as("drains, replacements and the step-down, in order")
          .containsExactlyElementsOf(expected);
      assertThat(done.getFrom()).isEqualTo("1.0.0");
      assertThat(done.getDrains()).isEqualTo(4);
      assertThat(done.getWarmRestarts()).isZero();
      assertThat(done.getBytesMoved()).isPositive();
      recorder.awaitEvent("RolloutCompleted: release 1.0.0 -> 1.1.0 done on 7 pods", TIMEOUT);
      assertThat(readBack(name, 3, values)).as("objects lost").isZero();
      System.out.printf(
          "rolling upgrade 1.0.0 -> 1.1.0 of 3 masters and 4 storage nodes with %d objects (R=2,"
              + " drains): %d s, %d bytes moved, 0 objects lost%n",
          values.size(), took.toSeconds(), done.getBytesMoved());

      // scale down 4 -> 3 without loss: the surplus node is drained, then removed
      edit(name, pool -> pool.getSpec().getStorage().setReplicas(3));
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                KvCachePoolStatus s = pods.status(name);
                assertThat(s.getStorage()).isEqualTo("3/3");
                assertThat(client.pods().inNamespace(NS).withName(name + "-storage-3").get())
                    .isNull();
                assertThat(s.getUpgrade().getPhase()).isEqualTo(RolloutPhase.Completed);
                assertThat(Conditions.isTrue(s.getConditions(), "Ready")).isTrue();
              });
      recorder.awaitEvent(
          "DrainingStorageNode: draining "
              + name
              + "-storage-3 to scale the storage nodes down to 3",
          TIMEOUT);
      recorder.awaitEvent("StorageNodeRemoved: " + name + "-storage-3", TIMEOUT);
      assertThat(readBack(name, 3, values)).as("objects lost by the scale-down").isZero();

      // scale up again: the new node takes placements at once
      edit(name, pool -> pool.getSpec().getStorage().setReplicas(4));
      await()
          .atMost(TIMEOUT)
          .untilAsserted(() -> assertThat(pods.status(name).getStorage()).isEqualTo("4/4"));
      Map<String, byte[]> more = values(100, 2);
      put(name, 3, more);
      assertThat(node(name, name + "-storage-3").replicas())
          .as("replicas placed on the new node")
          .isPositive();
    }
  }

  @Test
  void warmRestartsKeepTheReplicasInTheirMemoryFilesAndMoveNoBytes() throws Exception {
    String name = "warm";
    createRunning(
        name,
        "1.0.0",
        1,
        3,
        pool -> {
          WarmRestartSpec warm = new WarmRestartSpec();
          warm.setEnabled(true);
          warm.setHostPath(memoryRoot.toString());
          pool.getSpec().getStorage().setWarmRestart(warm);
          pool.getSpec()
              .setNodeTtl(
                  "60s"); // a restart never outlasts it: no replica is declared lost meanwhile
        });
    Map<String, byte[]> values = values(600, 3);
    put(name, 1, values);
    Map<String, Long> before = new LinkedHashMap<>();
    for (int i = 0; i < 3; i++) {
      before.put(name + "-storage-" + i, node(name, name + "-storage-" + i).replicas());
    }

    Instant started = Instant.now();
    try (RolloutRecorder recorder = new RolloutRecorder(client, NS, name)) {
      edit(name, pool -> pool.getSpec().setVersion("1.1.0"));
      UpgradeStatus done = awaitRollout(name, "1.1.0", 4);
      Duration took = Duration.between(started, Instant.now());
      assertThat(done.getWarmRestarts()).isEqualTo(3);
      assertThat(done.getDrains()).isZero();
      assertThat(done.getBytesMoved()).isZero();
      assertThat(recorder.deletedPods())
          .containsExactly(
              name + "-storage-2", name + "-storage-1", name + "-storage-0", name + "-master-0");
      for (Map.Entry<String, Long> e : before.entrySet()) {
        recorder.awaitEvent(
            "RolloutStepDone: "
                + e.getKey()
                + " restarted warm on release 1.1.0: "
                + e.getValue()
                + " of "
                + e.getValue()
                + " replicas kept",
            TIMEOUT);
        // the new master's count, once the node has registered with it and delivered its whole
        // inventory
        await()
            .atMost(TIMEOUT)
            .untilAsserted(() -> assertThat(node(name, e.getKey()).state()).isEqualTo("ALIVE"));
        assertThat(node(name, e.getKey()).replicas())
            .as("replicas of %s at the new master", e.getKey())
            .isEqualTo(e.getValue());
      }
      assertThat(readBack(name, 1, values)).as("objects lost").isZero();
      System.out.printf(
          "rolling upgrade 1.0.0 -> 1.1.0 of 1 master and 3 storage nodes with %d objects (R=2, warm"
              + " restarts): %d s, %d bytes moved, 0 objects lost%n",
          values.size(), took.toSeconds(), done.getBytesMoved());
    }
  }

  @Test
  void aMajorVersionChangeIsBlockedWithItsReasonAndRestartsNothing() {
    String name = "major";
    createRunning(name, "1.0.0", 1, 2, pool -> {});
    Map<String, String> uids = podUids(name);
    String template = template(name + "-storage");
    try (RolloutRecorder recorder = new RolloutRecorder(client, NS, name)) {
      edit(name, pool -> pool.getSpec().setVersion("2.0.0"));
      long generation =
          client
              .resources(KvCachePool.class)
              .inNamespace(NS)
              .withName(name)
              .get()
              .getMetadata()
              .getGeneration();
      await()
          .atMost(TIMEOUT)
          .untilAsserted(
              () -> {
                KvCachePoolStatus s = pods.status(name);
                assertThat(s.getObservedGeneration()).isEqualTo(generation);
                var blocked = Conditions.find(s.getConditions(), "UpgradeBlocked").orElseThrow();
                assertThat(blocked.getStatus()).isEqualTo("True");
                assertThat(blocked.getReason()).isEqualTo("VersionPolicy");
                assertThat(blocked.getMessage())
                    .contains("release 1.0.0 -> 2.0.0 changes the major version")
                    .contains("the pool keeps running 1.0.0");
                assertThat(s.getUpgrade().getPhase()).isEqualTo(RolloutPhase.Blocked);
              });
      recorder.awaitEvent("UpgradeBlocked: VersionPolicy: release 1.0.0 -> 2.0.0", TIMEOUT);
      KvCachePoolStatus s = pods.status(name);
      assertThat(s.getPhase()).isEqualTo(PoolPhase.Running);
      assertThat(s.getCurrentVersion()).isEqualTo("1.0.0");
      assertThat(podUids(name)).as("no pod restarted").isEqualTo(uids);
      assertThat(template(name + "-storage"))
          .as("the storage template is untouched")
          .isEqualTo(template);
      assertThat(recorder.deletedPods()).isEmpty();
      assertThat(
              client
                  .pods()
                  .inNamespace(NS)
                  .withLabel("app.kubernetes.io/component", "version-check")
                  .list()
                  .getItems())
          .as("no image is checked for a refused release")
          .isEmpty();

      // taking the change back clears the refusal and says so, still without a restart
      edit(name, pool -> pool.getSpec().setVersion("1.0.0"));
      await()
          .atMost(TIMEOUT)
          .untilAsserted(
              () -> {
                KvCachePoolStatus back = pods.status(name);
                assertThat(
                        Conditions.find(back.getConditions(), "UpgradeBlocked")
                            .orElseThrow()
                            .getStatus())
                    .isEqualTo("False");
                assertThat(back.getUpgrade().getPhase()).isEqualTo(RolloutPhase.Withdrawn);
                assertThat(back.getUpgrade().getMessage())
                    .isEqualTo(
                        "spec.version is 1.0.0 again: the change to 2.0.0 was"
                            + " withdrawn before any pod was replaced");
              });
      recorder.awaitEvent("RolloutWithdrawn: spec.version is 1.0.0 again", TIMEOUT);
      assertThat(podUids(name)).as("no pod restarted").isEqualTo(uids);
      assertThat(recorder.deletedPods()).isEmpty();
    }
  }

  @Test
  void anOperatorRestartedMidRolloutResumesWhereItStopped() throws Exception {
    String name = "resume";
    createRunning(name, "1.0.0", 1, 3, pool -> {});
    Map<String, byte[]> values = values(300, 4);
    put(name, 1, values);
    try (RolloutRecorder recorder = new RolloutRecorder(client, NS, name)) {
      edit(name, pool -> pool.getSpec().setVersion("1.1.0"));
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> runs(name + "-storage-2", "1.1.0"));
      AtomicReference<UpgradeStatus> stoppedAt = new AtomicReference<>();
      pods.restartOperator(
          () -> {
            stoppedAt.set(pods.status(name).getUpgrade());
            System.out.println("operator stopped mid-rollout: " + stoppedAt.get());
          });
      UpgradeStatus done = awaitRollout(name, "1.1.0", 4);
      assertThat(done.getStartedAt())
          .as("the same rollout, resumed")
          .isEqualTo(stoppedAt.get().getStartedAt());
      assertThat(recorder.deletedPods())
          .as("each pod replaced once, in order")
          .containsExactly(
              name + "-storage-2", name + "-storage-1", name + "-storage-0", name + "-master-0");
      assertThat(readBack(name, 1, values)).as("objects lost").isZero();
    }
  }

  @Test
  void aStepThatNeverBecomesReadyPausesTheRolloutAndRollsBackWhenAsked() throws Exception {
    String name = "stuck";
    createRunning(
        name,
        "1.2.0",
        1,
        2,
        pool -> {
          UpgradeSpec upgrade = new UpgradeSpec();
          upgrade.setStepTimeout("10s");
          upgrade.setOnFailure(UpgradeFailurePolicy.Pause);
          pool.getSpec().setUpgrade(upgrade);
        });
    Map<String, byte[]> values = values(100, 5);
    put(name, 1, values);
    Map<String, String> uids = podUids(name);
    try (RolloutRecorder recorder = new RolloutRecorder(client, NS, name)) {
      edit(name, pool -> pool.getSpec().setVersion(BROKEN));
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                KvCachePoolStatus s = pods.status(name);
                var progressing = Conditions.find(s.getConditions(), "Progressing").orElseThrow();
                assertThat(progressing.getStatus()).isEqualTo("False");
                assertThat(progressing.getReason()).isEqualTo("StepTimedOut");
                assertThat(progressing.getMessage())
                    .contains(name + "-storage-1")
                    .contains("step timeout of 10s");
                assertThat(s.getUpgrade().getPhase()).isEqualTo(RolloutPhase.TimedOut);
              });
      recorder.awaitEvent("RolloutTimedOut: ", TIMEOUT);
      Map<String, String> now = podUids(name);
      assertThat(now.get(name + "-storage-0"))
          .as("nothing else is touched")
          .isEqualTo(uids.get(name + "-storage-0"));
      assertThat(now.get(name + "-master-0")).isEqualTo(uids.get(name + "-master-0"));
      assertThat(recorder.deletedPods()).containsExactly(name + "-storage-1");

      edit(name, pool -> pool.getSpec().getUpgrade().setOnFailure(UpgradeFailurePolicy.Rollback));
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(500))
          .untilAsserted(
              () -> {
                KvCachePoolStatus s = pods.status(name);
                assertThat(s.getUpgrade().getPhase()).isEqualTo(RolloutPhase.RolledBack);
                assertThat(runs(name + "-storage-1", "1.2.0")).isTrue();
                var blocked = Conditions.find(s.getConditions(), "UpgradeBlocked").orElseThrow();
                assertThat(blocked.getStatus()).isEqualTo("True");
                assertThat(blocked.getReason()).isEqualTo("RolledBack");
                assertThat(Conditions.isTrue(s.getConditions(), "Ready")).isTrue();
              });
      recorder.awaitEvent("RollingBack: ", TIMEOUT);
      recorder.awaitEvent("RolledBack: rolled back to release 1.2.0", TIMEOUT);
      assertThat(readBack(name, 1, values)).as("objects lost").isZero();
    }
  }

  // ---- helpers ----

  private static void createRunning(
      String name, String version, int masters, int storage, Consumer<KvCachePool> customise) {
    currentPool = name;
    KvCachePool pool = TestPools.pool(NS, name);
    pool.getSpec().setVersion(version);
    MasterSpec master = new MasterSpec();
    master.setReplicas(masters);
    pool.getSpec().setMaster(master);
    pool.getSpec().getStorage().setReplicas(storage);
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("64Mi"));
    customise.accept(pool);
    client.resource(pool).create();
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              KvCachePoolStatus s = pods.status(name);
              assertThat(s).isNotNull();
              assertThat(s.getPhase()).isEqualTo(PoolPhase.Running);
              assertThat(Conditions.isTrue(s.getConditions(), "Ready")).isTrue();
              assertThat(s.getMasters()).isEqualTo(masters + "/" + masters);
              assertThat(s.getStorage()).isEqualTo(storage + "/" + storage);
            });
  }

  private static void edit(String name, Consumer<KvCachePool> change) {
    Edits.edit(client, KvCachePool.class, NS, name, change);
  }

  /**
   * Waits until every pod runs {@code release} on the current templates and the rollout says
   * Completed.
   */
  private static UpgradeStatus awaitRollout(String name, String release, int updated) {
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              KvCachePoolStatus s = pods.status(name);
              assertThat(s.getUpgrade()).isNotNull();
              assertThat(s.getUpgrade().getPhase()).isEqualTo(RolloutPhase.Completed);
              assertThat(s.getUpgrade().getTo()).isEqualTo(release);
              assertThat(s.getUpgrade().getUpdated()).isEqualTo(updated);
              assertThat(s.getCurrentVersion()).isEqualTo(release);
              assertThat(Conditions.isTrue(s.getConditions(), "Ready")).isTrue();
            });
    return pods.status(name).getUpgrade();
  }

  private static boolean runs(String pod, String release) {
    Pod p = client.pods().inNamespace(NS).withName(pod).get();
    return p != null
        && p.getMetadata().getDeletionTimestamp() == null
        && release.equals(p.getMetadata().getAnnotations().get("kvpool.io/release"))
        && p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  private static String firstPod(String event, String pool) {
    var m = java.util.regex.Pattern.compile(pool + "-(master|storage)-[0-9]+").matcher(event);
    return m.find() ? m.group() : "?";
  }

  private static Map<String, String> podUids(String name) {
    Map<String, String> uids = new LinkedHashMap<>();
    client
        .pods()
        .inNamespace(NS)
        .withLabel("app.kubernetes.io/instance", name)
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getName().matches(".*-(master|storage)-[0-9]+"))
        .forEach(p -> uids.put(p.getMetadata().getName(), p.getMetadata().getUid()));
    return uids;
  }

  private static String template(String statefulSet) {
    StatefulSet sts = client.apps().statefulSets().inNamespace(NS).withName(statefulSet).get();
    return sts.getSpec()
        .getTemplate()
        .getMetadata()
        .getAnnotations()
        .get("kvpool.io/template-hash");
  }

  private static Map<String, byte[]> values(int n, long seed) {
    Random random = new Random(seed);
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      byte[] value = new byte[1 + random.nextInt(64 << 10)];
      random.nextBytes(value);
      values.put("block-" + seed + "-" + i, value);
    }
    return values;
  }

  private static void put(String name, int masters, Map<String, byte[]> values) {
    try (KvPoolClient kv = client(name, masters)) {
      values.forEach((k, v) -> kv.put(k, ByteBuffer.wrap(v), 2));
    }
  }

  /** Reads every value back; returns how many are missing or differ. */
  private static int readBack(String name, int masters, Map<String, byte[]> values) {
    int lost = 0;
    try (KvPoolClient kv = client(name, masters)) {
      for (Map.Entry<String, byte[]> e : values.entrySet()) {
        try {
          ByteBuffer got = kv.get(e.getKey());
          byte[] bytes = new byte[got.remaining()];
          got.get(bytes);
          if (!java.util.Arrays.equals(bytes, e.getValue())) {
            lost++;
          }
        } catch (RuntimeException ex) {
          System.out.println("lost " + e.getKey() + ": " + ex);
          lost++;
        }
      }
    }
    return lost;
  }

  private static KvPoolClient client(String name, int masters) {
    List<HostPort> endpoints = new ArrayList<>();
    for (int i = 0; i < masters; i++) {
      endpoints.add(pods.masterEndpoint(name + "-master-" + i));
    }
    return KvPoolClient.connect(
        ClientConfig.builder()
            .masters(endpoints)
            .clientId("upgrade-test")
            .poolKey(pods.clientKey(name))
            .timeout(Duration.ofSeconds(60))
            .build());
  }

  private static MasterStatus.NodeStatus node(String pool, String id) throws Exception {
    String leader = pods.leaderPod(pool).orElseThrow().getMetadata().getName();
    return pods.adminStatus(leader, PoolPods.MASTER_ADMIN_PORT, MasterStatus.class).nodes().stream()
        .filter(n -> n.id().equals(id))
        .findFirst()
        .orElseThrow();
  }
}
