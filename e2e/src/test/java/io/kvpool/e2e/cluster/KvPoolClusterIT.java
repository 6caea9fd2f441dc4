package io.kvpool.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.NodeState;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.DiskHostPath;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.DiskVolumeClaim;
import io.kvpool.api.v1alpha1.EventsSpec;
import io.kvpool.api.v1alpha1.ImagePullPolicy;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.ScalingDecision;
import io.kvpool.api.v1alpha1.UpgradeSpec;
import io.kvpool.api.v1alpha1.WarmRestartSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * kvpool end to end on a real cluster whose kubelet runs the pods: the images built by the images/
 * module, the operator installed with the Helm chart, pools of real master and storage-node pods,
 * and a client pod that reaches them as an inference pod would. Each scenario has a deadline and
 * dumps pod logs, events and {@code kubectl describe} when it fails; the log ends with a table of
 * scenarios, durations and measurements. Run it with {@code e2e/run-e2e.sh}. Which cluster: see
 * {@link ClusterChoice}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KvPoolClusterIT {
  static final String SYSTEM_NAMESPACE = "kvpool-system";
  static final String RELEASE_NAME = "kvpool";
  static final String TCP = "e2e-tcp";
  static final String HA = "e2e-ha";
  static final String BAD = "e2e-bad";
  static final String UPGRADE = "e2e-upgrade";
  static final String AUTOSCALE = "e2e-autoscale";
  static final String EVENTS = "e2e-events";
  static final String DISK = "e2e-disk";
  static final String DISK_HOST = "e2e-disk-host";
  static final String DISK_CLAIM = "e2e-disk-claim";

  /** A StorageClass no provisioner serves: the scenario makes its PersistentVolumes itself. */
  static final String DISK_CLAIM_CLASS = "kvpool-e2e-static";

  static final String UP = "up";
  static final int KEYS = 2000;

  /**
   * The storage pods' user (the operator's PodSecurity.USER), who must own the warm-restart folder.
   */
  static final long DATA_PLANE_UID = 65532L;

  private static Path repoRoot;
  private static E2eImages images;
  private static E2eCluster cluster;
  private static KubernetesClient client;
  private static Kubectl kubectl;
  private static Diagnostics diagnostics;
  private static WorkloadPod workloads;
  private static boolean operatorAvailable;
  private static boolean tcpPoolReady;
  private static boolean valuesStored;
  private static boolean upgradeNamespaceCreated;
  private static boolean upgradePoolStored;
  private static boolean upgradeRolledOut;

  @BeforeAll
  static void openCluster() throws IOException {
    repoRoot = Path.of(System.getProperty("kvpool.repo.root", "..")).toAbsolutePath().normalize();
    images =
        E2eImages.read(
            Path.of(
                System.getProperty(
                    "kvpool.images.dir", repoRoot.resolve("images/target/images").toString())));
    E2eLog.info(
        "images: "
            + images.dataPlane()
            + ", "
            + images.operator()
            + " (release "
            + images.release()
            + ")");
    long started = System.nanoTime();
    cluster = E2eCluster.open(repoRoot);
    E2eLog.info(
        "cluster ready: "
            + cluster.description()
            + " ("
            + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
            + ")");
    started = System.nanoTime();
    cluster.loadImages(images.tarballs());
    E2eLog.info(
        "images loaded in " + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started)));
    client =
        new KubernetesClientBuilder()
            .withConfig(Config.fromKubeconfig(Files.readString(cluster.kubeconfig())))
            .build();
    kubectl = new Kubectl(repoRoot, cluster.kubeconfig());
    diagnostics = new Diagnostics(client, kubectl, repoRoot.resolve("e2e/target/e2e-diagnostics"));
    workloads = new WorkloadPod(client, images.dataPlane());
    E2eLog.info("$ kubectl version\n" + kubectl.run("version").strip());
  }

  @AfterAll
  static void closeCluster() {
    E2eLog.info("scenarios:\n" + Scenario.summaryTable());
    try {
      if (client != null && cluster instanceof GivenCluster) {
        // Someone's cluster: take away what the suite added. A local or K3s cluster is thrown away
        // whole.
        for (String ns : List.of(TCP, HA, BAD, UPGRADE, AUTOSCALE, EVENTS, DISK)) {
          client.namespaces().withName(ns).delete();
        }
        new Helm(repoRoot.resolve("helm/kvpool"))
            .uninstall(RELEASE_NAME)
            .withNamespace(SYSTEM_NAMESPACE)
            .withKubeConfig(cluster.kubeconfig())
            .ignoreNotFound()
            .call();
      }
    } catch (RuntimeException e) {
      E2eLog.info("clean-up of the given cluster failed: " + e.getMessage());
    } finally {
      if (client != null) {
        client.close();
      }
      if (cluster != null) {
        cluster.close();
      }
    }
  }

  @Test
  @Order(1)
  void operatorInstalledWithTheChartBecomesAvailable() {
    Scenario.run(
        "(a) helm install -> operator Deployment Available",
        Duration.ofMinutes(5),
        diagnostics,
        List.of(SYSTEM_NAMESPACE),
        s -> {
          long started = System.nanoTime();
          Release release =
              new Helm(repoRoot.resolve("helm/kvpool"))
                  .install()
                  .withName(RELEASE_NAME)
                  .withNamespace(SYSTEM_NAMESPACE)
                  .createNamespace()
                  .withKubeConfig(cluster.kubeconfig())
                  .set("image.repository", images.operatorRepository())
                  .set("image.tag", images.operatorTag())
                  .set("image.pullPolicy", "IfNotPresent")
                  .call();
          s.measured(
              "helm install "
                  + release.getName()
                  + " (chart "
                  + release.getChart()
                  + "): "
                  + release.getStatus()
                  + " in "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started)));
          Deployment available =
              Await.until(
                  "the operator Deployment to become Available",
                  Duration.ofMinutes(4),
                  () ->
                      client
                          .apps()
                          .deployments()
                          .inNamespace(SYSTEM_NAMESPACE)
                          .withLabel("app.kubernetes.io/instance", RELEASE_NAME)
                          .list()
                          .getItems()
                          .stream()
                          .findFirst()
                          .orElse(null),
                  d ->
                      d.getStatus() != null
                          && d.getStatus().getConditions() != null
                          && d.getStatus().getConditions().stream()
                              .anyMatch(
                                  c ->
                                      "Available".equals(c.getType())
                                          && "True".equals(c.getStatus()))
                          && Integer.valueOf(1).equals(d.getStatus().getReadyReplicas()));
          s.measured(
              "operator "
                  + available.getMetadata().getName()
                  + " Available "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after helm install");
          E2eLog.info(
              "$ kubectl -n "
                  + SYSTEM_NAMESPACE
                  + " get deployments,pods -o wide\n"
                  + kubectl
                      .run("-n", SYSTEM_NAMESPACE, "get", "deployments,pods", "-o", "wide")
                      .strip());
          operatorAvailable = true;
        });
  }

  @Test
  @Order(2)
  void tcpPoolBecomesReady() {
    if (!needs(
        "(b) TCP pool (1 master + 3 storage nodes) becomes Ready",
        operatorAvailable,
        "the operator")) {
      return;
    }
    Scenario.run(
        "(b) TCP pool (1 master + 3 storage nodes) becomes Ready",
        Duration.ofMinutes(5),
        diagnostics,
        List.of(TCP, SYSTEM_NAMESPACE),
        s -> {
          namespace(TCP);
          long started = System.nanoTime();
          client
              .resources(KvCachePool.class)
              .inNamespace(TCP)
              .resource(Pools.pool("tcp", images.release(), 1, 3, "64Mi", 2))
              .create();
          KvCachePool ready = awaitReady(TCP, "tcp", Duration.ofMinutes(4));
          s.measured(
              "Ready "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after create");
          E2eLog.info(
              "$ kubectl -n "
                  + TCP
                  + " get kvcachepools -o wide\n"
                  + kubectl.run("-n", TCP, "get", "kvcachepools", "-o", "wide").strip());
          assertThat(ready.getStatus().getMasters()).isEqualTo("1/1");
          assertThat(ready.getStatus().getStorage()).isEqualTo("3/3");
          assertThat(ready.getStatus().getLeader()).as("leader column").isNotBlank();
          assertThat(ready.getStatus().getCurrentVersion())
              .as("version column")
              .isEqualTo(images.release());
          assertThat(ready.getStatus().getCapacity()).as("capacity column").isNotBlank();
          tcpPoolReady = true;
        });
  }

  @Test
  @Order(3)
  void clientPodPutsAndReadsBackThroughTheClientConfigMap() {
    String name = "(c) client pod puts 2000 values (R=2) and reads them back byte-exact";
    if (!needs(name, tcpPoolReady, "the Ready TCP pool of (b)")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(8),
        diagnostics,
        List.of(TCP, SYSTEM_NAMESPACE),
        s -> {
          WorkloadPod.Result put =
              workloads.run(TCP, "tcp", "put", KEYS, "v", 2, Duration.ofMinutes(4));
          assertThat(put.succeeded()).as("put pod %s: %s", put.pod(), put.summary()).isTrue();
          assertThat(put.number("ok")).isEqualTo(KEYS);
          valuesStored = true;
          s.measured(
              "put "
                  + KEYS
                  + " values ("
                  + put.number("bytes") / 1024
                  + " KiB) in "
                  + put.number("millis")
                  + " ms");
          WorkloadPod.Result verify =
              workloads.run(TCP, "tcp", "verify", KEYS, "v", 2, Duration.ofMinutes(4));
          assertThat(verify.succeeded())
              .as("verify pod %s: %s", verify.pod(), verify.summary())
              .isTrue();
          assertThat(verify.number("ok")).isEqualTo(KEYS);
          assertThat(verify.number("mismatched")).isZero();
          s.measured(
              "read back "
                  + verify.number("ok")
                  + "/"
                  + KEYS
                  + " byte-exact in "
                  + verify.number("millis")
                  + " ms");

          KvCachePool pool =
              Await.until(
                  "the pool's status to count " + KEYS + " objects",
                  Duration.ofMinutes(1),
                  () -> Pools.get(client, TCP, "tcp"),
                  p ->
                      p.getStatus() != null
                          && Long.valueOf(KEYS).equals(p.getStatus().getObjectCount()),
                  Pools::describe);
          E2eLog.info(
              "$ kubectl -n "
                  + TCP
                  + " get kvcachepools -o wide\n"
                  + kubectl.run("-n", TCP, "get", "kvcachepools", "-o", "wide").strip());
          assertThat(pool.getStatus().getUsed()).as("used column").isNotBlank();
          MasterStatus master = Pools.servingLeader(client, TCP, "tcp").orElseThrow();
          assertThat(master.counters().objectsLost()).as("objects lost").isZero();
          s.measured("objects lost " + master.counters().objectsLost());
        });
  }

  @Test
  @Order(4)
  void onlyLabelledClientsReachTheDataPorts() {
    String name =
        "(e) NetworkPolicy: a pod without the client label cannot reach the data ports, a client can";
    if (!needs(name, valuesStored, "the pool serving the clients of (c)")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(6),
        diagnostics,
        List.of(TCP, SYSTEM_NAMESPACE),
        s -> {
          String masterRpc = endpoint(TCP, "tcp-master-0", "rpc");
          String storageRpc = endpoint(TCP, "tcp-storage-0", "rpc");
          String masterAdmin = endpoint(TCP, "tcp-master-0", "admin");
          WorkloadPod.Result labelled =
              workloads.reach(
                  TCP,
                  "tcp",
                  true,
                  "open",
                  90,
                  List.of(masterRpc, storageRpc),
                  Duration.ofMinutes(3));
          assertThat(labelled.succeeded())
              .as("a labelled client reaches %s and %s: %s", masterRpc, storageRpc, labelled.log())
              .isTrue();
          s.measured("labelled client: " + reachLines(labelled));
          WorkloadPod.Result stranger =
              workloads.reach(
                  TCP,
                  "tcp",
                  false,
                  "closed",
                  20,
                  List.of(masterRpc, storageRpc, masterAdmin),
                  Duration.ofMinutes(3));
          assertThat(stranger.succeeded())
              .as(
                  "a pod without the label reaches none of %s, %s, %s: %s",
                  masterRpc, storageRpc, masterAdmin, stranger.log())
              .isTrue();
          s.measured("unlabelled pod, 20 s of tries: " + reachLines(stranger));
          WorkloadPod.Result clientAdmin =
              workloads.reach(
                  TCP, "tcp", true, "closed", 10, List.of(masterAdmin), Duration.ofMinutes(3));
          assertThat(clientAdmin.succeeded())
              .as("the admin port is only for the operator's namespace: %s", clientAdmin.log())
              .isTrue();
          s.measured("labelled client to the admin port: " + reachLines(clientAdmin));
          try {
            WorkloadPod.Result operatorNamespace =
                workloads.reach(
                    SYSTEM_NAMESPACE,
                    null,
                    false,
                    "open",
                    90,
                    List.of(masterAdmin),
                    Duration.ofMinutes(3));
            assertThat(operatorNamespace.succeeded())
                .as(
                    "a pod in the operator's namespace reaches the admin port: %s",
                    operatorNamespace.log())
                .isTrue();
            s.measured(
                "pod in "
                    + SYSTEM_NAMESPACE
                    + " to the admin port: "
                    + reachLines(operatorNamespace));
          } finally {
            workloads.removeFrom(
                SYSTEM_NAMESPACE); // the operator's namespace is not the suite's to leave things in
          }
        });
  }

  /** {@code podIP:port} of the named container port of {@code pod}. */
  private static String endpoint(String namespace, String pod, String portName) {
    Pod p = client.pods().inNamespace(namespace).withName(pod).get();
    int port =
        p.getSpec().getContainers().stream()
            .flatMap(c -> c.getPorts().stream())
            .filter(cp -> portName.equals(cp.getName()))
            .findFirst()
            .orElseThrow(() -> new AssertionError(pod + " has no port named " + portName))
            .getContainerPort();
    return p.getStatus().getPodIP() + ":" + port;
  }

  private static String reachLines(WorkloadPod.Result result) {
    return result
        .log()
        .lines()
        .filter(l -> l.startsWith("REACH "))
        .map(l -> l.substring(6))
        .collect(Collectors.joining(", "));
  }

  @Test
  @Order(5)
  void deletedStoragePodComesBackAndReplicasAreRepaired() {
    String name = "storage pod deleted -> values readable, pod re-registers, replicas repaired";
    if (!needs(name, valuesStored, "the values stored by (c)")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(8),
        diagnostics,
        List.of(TCP, SYSTEM_NAMESPACE),
        s -> {
          String victim = "tcp-storage-1";
          String oldUid =
              client.pods().inNamespace(TCP).withName(victim).get().getMetadata().getUid();
          long started = System.nanoTime();
          client.pods().inNamespace(TCP).withName(victim).delete();
          E2eLog.info("deleted pod " + victim + "; reading every value while it is away");
          WorkloadPod.Result whileAway =
              workloads.run(TCP, "tcp", "verify", KEYS, "v", 2, Duration.ofMinutes(4));
          assertThat(whileAway.succeeded())
              .as("verify while %s is away: %s", victim, whileAway.summary())
              .isTrue();
          s.measured("read " + whileAway.number("ok") + "/" + KEYS + " while the pod was away");
          Await.until(
              victim + " to be recreated and Ready",
              Duration.ofMinutes(3),
              () -> client.pods().inNamespace(TCP).withName(victim).get(),
              p -> !oldUid.equals(p.getMetadata().getUid()) && podReady(p),
              KvPoolClusterIT::describePod);
          s.measured(
              "pod back and Ready "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after delete");
          MasterStatus repaired =
              Await.until(
                  victim + " re-registered and every object at 2 replicas",
                  Duration.ofMinutes(3),
                  () -> Pools.servingLeader(client, TCP, "tcp").orElse(null),
                  m ->
                      m.aliveNodes() == 3
                          && m.nodes().stream()
                              .anyMatch(
                                  n -> n.id().equals(victim) && n.nodeState() == NodeState.ALIVE)
                          && m.counters().underReplicated() == 0);
          s.measured(
              "re-registered and repaired "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after delete; repairs="
                  + repaired.counters().repairs()
                  + " objectsLost="
                  + repaired.counters().objectsLost());
          assertThat(repaired.counters().objectsLost()).as("objects lost").isZero();
          WorkloadPod.Result after =
              workloads.run(TCP, "tcp", "verify", KEYS, "v", 2, Duration.ofMinutes(4));
          assertThat(after.succeeded()).as("verify after repair: %s", after.summary()).isTrue();
        });
  }

  @Test
  @Order(6)
  void scaledStorageTakesPlacements() {
    String name = "scale storage 3 -> 4 -> the new node takes placements";
    if (!needs(name, tcpPoolReady, "the Ready TCP pool of (b)")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(8),
        diagnostics,
        List.of(TCP, SYSTEM_NAMESPACE),
        s -> {
          long started = System.nanoTime();
          patchSpec(TCP, "tcp", "{\"storage\":{\"replicas\":4}}");
          KvCachePool ready = awaitReady(TCP, "tcp", Duration.ofMinutes(4));
          assertThat(ready.getStatus().getStorage()).isEqualTo("4/4");
          s.measured(
              "4/4 Ready "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after the edit");
          Await.until(
              "the master to count 4 live nodes",
              Duration.ofMinutes(2),
              () -> Pools.servingLeader(client, TCP, "tcp").orElse(null),
              m -> m.aliveNodes() == 4);
          WorkloadPod.Result put =
              workloads.run(TCP, "tcp", "put", 1000, "scaled", 2, Duration.ofMinutes(4));
          assertThat(put.succeeded()).as("put after scaling: %s", put.summary()).isTrue();
          MasterStatus master = Pools.servingLeader(client, TCP, "tcp").orElseThrow();
          MasterStatus.NodeStatus added =
              master.nodes().stream()
                  .filter(n -> n.id().equals("tcp-storage-3"))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new AssertionError(
                              "tcp-storage-3 is not among the master's nodes " + master.nodes()));
          long total = master.nodes().stream().mapToLong(MasterStatus.NodeStatus::replicas).sum();
          s.measured(
              "tcp-storage-3 holds "
                  + added.replicas()
                  + " of "
                  + total
                  + " replicas ("
                  + added.usedBytes() / 1024
                  + " KiB)");
          assertThat(added.replicas()).as("replicas placed on the new node").isPositive();
          E2eLog.info(
              "$ kubectl -n "
                  + TCP
                  + " get kvcachepools -o wide\n"
                  + kubectl.run("-n", TCP, "get", "kvcachepools", "-o", "wide").strip());
        });
  }

  @Test
  @Order(7)
  void deletedPoolLeavesNothingItOwned() {
    String name = "delete the pool -> everything it owned is garbage-collected";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(4),
        diagnostics,
        List.of(TCP, SYSTEM_NAMESPACE),
        s -> {
          KvCachePool pool = Pools.get(client, TCP, "tcp");
          if (pool == null) {
            throw new AssertionError("no pool tcp in " + TCP + " to delete");
          }
          List<HasMetadata> owned = ownedBy(TCP, pool.getMetadata().getUid());
          s.measured(
              owned.size()
                  + " owned objects: "
                  + owned.stream()
                      .map(o -> o.getKind())
                      .collect(
                          Collectors.groupingBy(
                              k -> k, java.util.TreeMap::new, Collectors.counting())));
          assertThat(owned).as("objects the pool owns").isNotEmpty();
          long started = System.nanoTime();
          client.resources(KvCachePool.class).inNamespace(TCP).withName("tcp").delete();
          Await.until(
              "every object the pool owned (and their pods) to be gone",
              Duration.ofMinutes(3),
              () ->
                  owned.stream()
                      .filter(o -> client.resource(o).get() != null)
                      .map(o -> o.getKind() + "/" + o.getMetadata().getName())
                      .toList(),
              List::isEmpty);
          Await.until(
              "the pool's pods to be gone",
              Duration.ofMinutes(2),
              () ->
                  client
                      .pods()
                      .inNamespace(TCP)
                      .withLabel("app.kubernetes.io/instance", "tcp")
                      .list()
                      .getItems(),
              List::isEmpty);
          s.measured(
              "all gone "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after delete");
          // Not owned, so not the garbage collector's: reported, e.g. an election Lease the masters
          // created.
          List<String> left = new ArrayList<>();
          client
              .leases()
              .inNamespace(TCP)
              .list()
              .getItems()
              .forEach(l -> left.add("Lease/" + l.getMetadata().getName()));
          client.configMaps().inNamespace(TCP).list().getItems().stream()
              .filter(
                  c ->
                      !c.getMetadata().getName().equals("kube-root-ca.crt")
                          && !c.getMetadata().getName().equals(WorkloadPod.JAR_CONFIG_MAP))
              .forEach(c -> left.add("ConfigMap/" + c.getMetadata().getName()));
          s.measured(
              "left in the namespace, not owned by the pool: "
                  + (left.isEmpty() ? "nothing" : left));
          client.namespaces().withName(TCP).delete();
        });
  }

  @Test
  @Order(8)
  void podThatCannotStartIsNamedInTheStatus() {
    String name = "(d) a pod that cannot start -> status names the pod and its waiting reason";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(4),
        diagnostics,
        List.of(BAD, SYSTEM_NAMESPACE),
        s -> {
          namespace(BAD);
          KvCachePool bad = Pools.pool("bad", images.release(), 1, 1, "16Mi", 1);
          bad.getSpec().setImage(images.dataPlane().replaceAll(":[^:/]+$", ":0.0.0-missing"));
          bad.getSpec().setImagePullPolicy(ImagePullPolicy.Never);
          client.resources(KvCachePool.class).inNamespace(BAD).resource(bad).create();
          Await.until(
              "bad-master-0 to wait with ErrImageNeverPull",
              Duration.ofMinutes(2),
              () -> client.pods().inNamespace(BAD).withName("bad-master-0").get(),
              p -> waitingReason(p).equals("ErrImageNeverPull"),
              KvPoolClusterIT::describePod);
          s.measured("bad-master-0 waits with ErrImageNeverPull");
          try {
            KvCachePool named =
                Await.until(
                    "the pool's status to name bad-master-0 and ErrImageNeverPull",
                    Duration.ofMinutes(1),
                    () -> Pools.get(client, BAD, "bad"),
                    p ->
                        statusText(p).contains("bad-master-0")
                            && statusText(p).contains("ErrImageNeverPull"),
                    Pools::describe);
            s.measured("status: " + named.getStatus().getMessage());
          } finally {
            E2eLog.info(
                "$ kubectl -n "
                    + BAD
                    + " get kvcachepools -o wide\n"
                    + kubectl.run("-n", BAD, "get", "kvcachepools", "-o", "wide").strip()
                    + "\nstatus: "
                    + Pools.describe(Pools.get(client, BAD, "bad")));
          }
          client.namespaces().withName(BAD).delete();
        });
  }

  @Test
  @Order(9)
  void haPoolSurvivesTheLossOfItsLeader() {
    String name = "HA pool (3 masters): leader pod deleted -> new leader, every object readable";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(10),
        diagnostics,
        List.of(HA, SYSTEM_NAMESPACE),
        s -> {
          namespace(HA);
          client
              .resources(KvCachePool.class)
              .inNamespace(HA)
              .resource(Pools.pool("ha", images.release(), 3, 3, "64Mi", 2))
              .create();
          KvCachePool ready = awaitReady(HA, "ha", Duration.ofMinutes(4));
          E2eLog.info(
              "$ kubectl -n "
                  + HA
                  + " get kvcachepools -o wide\n"
                  + kubectl.run("-n", HA, "get", "kvcachepools", "-o", "wide").strip());
          int keys = 1000;
          WorkloadPod.Result put =
              workloads.run(HA, "ha", "put", keys, "ha", 2, Duration.ofMinutes(4));
          assertThat(put.succeeded()).as("put: %s", put.summary()).isTrue();
          Pools.Answer before = Pools.servingLeaderPod(client, HA, "ha").orElseThrow();
          String oldLeader = before.pod();
          assertThat(ready.getStatus().getLeader())
              .as("the leader in the pool's status")
              .isEqualTo(oldLeader);
          long started = System.nanoTime();
          long deletedAtMillis = System.currentTimeMillis();
          client.pods().inNamespace(HA).withName(oldLeader).delete();
          E2eLog.info("deleted the leader " + oldLeader + " (view " + before.status().view() + ")");
          // A new leadership has a new view; the winner may be a standby or the recreated pod
          // itself.
          Pools.Answer after =
              Await.until(
                  "a master to lead and serve a new view",
                  Duration.ofMinutes(2),
                  Duration.ofMillis(250),
                  () -> Pools.servingLeaderPod(client, HA, "ha").orElse(null),
                  a -> a.status().view() != before.status().view(),
                  a -> a.pod() + " view " + a.status().view());
          Duration failover = Duration.ofNanos(System.nanoTime() - started);
          s.measured(
              "failover "
                  + E2eLog.seconds(failover)
                  + ": "
                  + after.pod()
                  + " serves view "
                  + after.status().view()
                  + " (was "
                  + oldLeader
                  + ", view "
                  + before.status().view()
                  + ")");
          // a view is the time its leadership began, in ms of this single machine's clock
          s.measured(
              "new leadership began "
                  + E2eLog.seconds(Duration.ofMillis(after.status().view() - deletedAtMillis))
                  + " after the delete");
          KvCachePool shown =
              Await.until(
                  "the pool's status to show the new leader " + after.pod(),
                  Duration.ofMinutes(1),
                  () -> Pools.get(client, HA, "ha"),
                  p ->
                      p.getStatus() != null
                          && after.pod().equals(p.getStatus().getLeader())
                          && (p.getStatus().getViewNumber() == null
                              || p.getStatus().getViewNumber() == after.status().view()),
                  Pools::describe);
          s.measured(
              "status shows leader "
                  + shown.getStatus().getLeader()
                  + " "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after the delete");
          WorkloadPod.Result verify =
              workloads.run(HA, "ha", "verify", keys, "ha", 2, Duration.ofMinutes(4));
          assertThat(verify.succeeded()).as("verify after failover: %s", verify.summary()).isTrue();
          s.measured("objects lost " + (keys - verify.number("ok")));
          s.measured("new leader's recovery: " + recoveryOf(HA, after.pod()));
          E2eLog.info(
              "$ kubectl -n "
                  + HA
                  + " get kvcachepools -o wide\n"
                  + kubectl.run("-n", HA, "get", "kvcachepools", "-o", "wide").strip());
        });
  }

  /**
   * What a leader logged when its lease recovery ended (how long it took, which recorded nodes
   * never came).
   */
  private String recoveryOf(String namespace, String pod) {
    String done =
        kubectl
            .run("-n", namespace, "logs", pod)
            .lines()
            .filter(l -> l.contains("event=recovery_done"))
            .reduce((first, last) -> last)
            .orElse("");
    int from = done.indexOf("nodes=");
    return from < 0 ? "not logged by " + pod : done.substring(from).strip();
  }

  @Test
  @Order(10)
  void upgradePoolOnRelease100HoldsValues() {
    String name = "upgrade pool: 1.0.0, 1 master + 4 storage nodes, warm restarts, 2000 values";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    if (!images.hasReleaseTag("1.0.0")
        || !images.hasReleaseTag("1.1.0")
        || !images.hasReleaseTag("2.0.0")) {
      Scenario.skipped(
          name,
          "the images have no release tags 1.0.0, 1.1.0 and 2.0.0 ("
              + images.releaseTags()
              + "): rebuild them (./mvnw -pl images -am package)");
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(12),
        diagnostics,
        List.of(UPGRADE, SYSTEM_NAMESPACE),
        s -> {
          namespace(UPGRADE);
          upgradeNamespaceCreated = true;
          // Kubernetes creates a missing hostPath folder owned by root; the storage pods' user must
          // own it, and files of
          // an earlier run must not be adopted.
          WorkloadPod.Result prepared =
              hostFolders(UPGRADE, List.of(cluster.memoryFolder()), "prepare");
          s.measured(
              "memory folder "
                  + cluster.memoryFolder()
                  + " owned by "
                  + prepared.summary().get("owner")
                  + " ("
                  + prepared.summary().get("removed")
                  + " leftovers removed)");
          long started = System.nanoTime();
          client.resources(KvCachePool.class).inNamespace(UPGRADE).resource(upgradePool()).create();
          KvCachePool ready = awaitReady(UPGRADE, UP, Duration.ofMinutes(5));
          s.measured(
              "Ready "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " after create");
          assertThat(ready.getStatus().getStorage()).isEqualTo("4/4");
          assertThat(ready.getStatus().getCurrentVersion()).isEqualTo("1.0.0");
          assertThat(Pools.pods(client, UPGRADE, UP, "storage"))
              .allSatisfy(
                  p ->
                      assertThat(p.getSpec().getVolumes())
                          .as("%s keeps its segments in memory files", p.getMetadata().getName())
                          .anyMatch(
                              v ->
                                  v.getHostPath() != null
                                      && cluster.memoryFolder().equals(v.getHostPath().getPath())));

          WorkloadPod.Result put =
              workloads.run(UPGRADE, UP, "put", KEYS, UP, 2, Duration.ofMinutes(4));
          assertThat(put.succeeded()).as("put pod %s: %s", put.pod(), put.summary()).isTrue();
          assertThat(put.number("ok")).isEqualTo(KEYS);
          s.measured(
              "put "
                  + KEYS
                  + " values ("
                  + put.number("bytes") / 1024
                  + " KiB, R=2) in "
                  + put.number("millis")
                  + " ms");
          Await.until(
              "the pool's status to count " + KEYS + " objects",
              Duration.ofMinutes(1),
              () -> Pools.get(client, UPGRADE, UP),
              p ->
                  p.getStatus() != null
                      && Long.valueOf(KEYS).equals(p.getStatus().getObjectCount()),
              Pools::describe);
          s.measured("replicas per node " + replicasPerNode(UPGRADE, UP));
          upgradePoolStored = true;
        });
  }

  @Test
  @Order(11)
  void majorVersionChangeIsBlockedAndRestartsNothing() {
    String name = "1.0.0 -> 2.0.0 -> UpgradeBlocked=True with its reason, no pod restarted";
    if (!needs(name, upgradePoolStored, "the upgrade pool with its values")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(8),
        diagnostics,
        List.of(UPGRADE, SYSTEM_NAMESPACE),
        s -> {
          Map<String, String> before = podIdentities(UPGRADE, UP);
          String storageTemplate = templateHash(UPGRADE, UP + "-storage");
          String masterTemplate = templateHash(UPGRADE, UP + "-master");
          java.time.Instant started = java.time.Instant.now();
          try {
            long generation = setVersion(UPGRADE, UP, "2.0.0");
            KvCachePool blocked =
                Await.until(
                    "UpgradeBlocked=True for generation " + generation,
                    Duration.ofMinutes(3),
                    () -> Pools.get(client, UPGRADE, UP),
                    p ->
                        observed(p, generation)
                            && Pools.condition(p, "UpgradeBlocked")
                                .filter(c -> "True".equals(c.getStatus()))
                                .isPresent(),
                    Pools::describe);
            var condition = Pools.condition(blocked, "UpgradeBlocked").orElseThrow();
            s.measured(
                "UpgradeBlocked=True reason "
                    + condition.getReason()
                    + ": "
                    + condition.getMessage());
            assertThat(condition.getReason()).isEqualTo("VersionPolicy");
            assertThat(condition.getMessage())
                .contains("1.0.0 -> 2.0.0")
                .contains("the pool keeps running 1.0.0");
            assertThat(blocked.getStatus().getUpgrade()).as("status.upgrade").isNotNull();
            assertThat(blocked.getStatus().getUpgrade().getPhase()).hasToString("Blocked");
            assertThat(blocked.getStatus().getCurrentVersion()).isEqualTo("1.0.0");
            List<String> warnings =
                Await.until(
                    "the UpgradeBlocked Warning Event",
                    Duration.ofMinutes(1),
                    () ->
                        RolloutWatch.lines(
                            RolloutWatch.events(client, UPGRADE, UP, started).stream()
                                .filter(
                                    e ->
                                        "Warning".equals(e.getType())
                                            && "UpgradeBlocked".equals(e.getReason()))
                                .toList()),
                    l -> !l.isEmpty());
            s.measured("Event " + warnings.get(0));
            // The reconciliation that refused the change wrote the condition after its rollout step
            // (which deletes pods
            // before the status is written): a pod it had restarted would already be terminating or
            // replaced. The gate
            // is pure, so later reconciliations decide the same; the templates show what they
            // render.
            assertThat(podIdentities(UPGRADE, UP))
                .as("pods (uid, restarts) after the refusal")
                .isEqualTo(before);
            assertThat(templateHash(UPGRADE, UP + "-storage"))
                .as("storage template")
                .isEqualTo(storageTemplate);
            assertThat(templateHash(UPGRADE, UP + "-master"))
                .as("master template")
                .isEqualTo(masterTemplate);
            assertThat(
                    client
                        .pods()
                        .inNamespace(UPGRADE)
                        .withLabel("app.kubernetes.io/component", "version-check")
                        .list()
                        .getItems())
                .as("no image is checked for a refused release")
                .isEmpty();
            s.measured(
                "no pod restarted: "
                    + before.size()
                    + " pods keep their UIDs and restart counts "
                    + before);
          } finally {
            setVersion(UPGRADE, UP, "1.0.0");
          }
          KvCachePool back =
              Await.until(
                  "UpgradeBlocked=False after spec.version went back to 1.0.0",
                  Duration.ofMinutes(2),
                  () -> Pools.get(client, UPGRADE, UP),
                  p ->
                      Pools.ready(p)
                          && Pools.condition(p, "UpgradeBlocked")
                              .filter(c -> "False".equals(c.getStatus()))
                              .isPresent(),
                  Pools::describe);
          s.measured(
              "back on 1.0.0: UpgradeBlocked=False ("
                  + Pools.condition(back, "UpgradeBlocked").orElseThrow().getReason()
                  + ")");
          assertThat(podIdentities(UPGRADE, UP)).as("pods after going back").isEqualTo(before);
        });
  }

  @Test
  @Order(12)
  void rollingUpgradeRestartsStorageNodesWarmAndLosesNoObject() {
    String name = "1.0.0 -> 1.1.0 with 2000 objects: one pod at a time, warm restarts, 0 lost";
    if (!needs(name, upgradePoolStored, "the upgrade pool with its values")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(25),
        diagnostics,
        List.of(UPGRADE, SYSTEM_NAMESPACE),
        s -> {
          Await.until(
              "pool " + UP + " Ready with every pod on release 1.0.0",
              Duration.ofMinutes(3),
              () -> Pools.get(client, UPGRADE, UP),
              p ->
                  Pools.ready(p)
                      && "1.0.0".equals(p.getStatus().getCurrentVersion())
                      && releases(UPGRADE, UP).equals(Set.of("1.0.0")),
              Pools::describe);
          Map<String, Long> replicasBefore = replicasPerNode(UPGRADE, UP);
          List<String> expectedOrder =
              List.of(
                  UP + "-storage-3",
                  UP + "-storage-2",
                  UP + "-storage-1",
                  UP + "-storage-0",
                  UP + "-master-0");
          try (RolloutWatch watch = new RolloutWatch(client, UPGRADE, UP)) {
            java.time.Instant started = java.time.Instant.now();
            long generation = setVersion(UPGRADE, UP, "1.1.0");
            KvCachePool done =
                awaitRollout(UPGRADE, UP, generation, "1.1.0", 5, Duration.ofMinutes(20));
            Duration took = Duration.between(started, java.time.Instant.now());
            var upgrade = done.getStatus().getUpgrade();
            E2eLog.info(
                "$ kubectl -n "
                    + UPGRADE
                    + " get kvcachepools -o wide\n"
                    + kubectl.run("-n", UPGRADE, "get", "kvcachepools", "-o", "wide").strip()
                    + "\nstatus.upgrade: "
                    + upgrade);
            List<String> events =
                RolloutWatch.lines(RolloutWatch.events(client, UPGRADE, UP, started));
            E2eLog.info("Events of the rollout:\n  " + String.join("\n  ", events));
            s.measured(
                "rollout 1.0.0 -> 1.1.0 of 5 pods: "
                    + E2eLog.seconds(took)
                    + " from the edit to Completed"
                    + " (status "
                    + upgrade.getStartedAt()
                    + " -> "
                    + upgrade.getCompletedAt()
                    + ")");
            s.measured(
                "status.upgrade: warmRestarts="
                    + upgrade.getWarmRestarts()
                    + " drains="
                    + upgrade.getDrains()
                    + " bytesMoved="
                    + upgrade.getBytesMoved());
            List<String> steps =
                events.stream()
                    .filter(e -> e.startsWith("RolloutStepDone: "))
                    .map(e -> e.substring("RolloutStepDone: ".length()))
                    .toList();
            s.measured("steps: " + String.join("; ", steps));
            events.stream()
                .filter(e -> e.startsWith("RolloutCompleted: "))
                .findFirst()
                .ifPresent(e -> s.measured("Event " + e));

            assertThat(watch.deleted())
                .as("pods replaced, in order, each once")
                .containsExactlyElementsOf(expectedOrder);
            assertThat(watch.oneAtATimeProblem()).as("one pod at a time").isNull();
            assertThat(upgrade.getFrom()).isEqualTo("1.0.0");
            assertThat(upgrade.getWarmRestarts()).as("storage pods restarted warm").isEqualTo(4);
            assertThat(upgrade.getDrains()).as("storage pods drained").isZero();
            assertThat(upgrade.getBytesMoved())
                .as("status.upgrade.bytesMoved is reported")
                .isNotNull();
            for (int i = 3; i >= 0; i--) {
              String pod = UP + "-storage-" + i;
              long held = replicasBefore.getOrDefault(pod, -1L);
              assertThat(steps)
                  .as("%s restarted warm, keeping its %d replicas", pod, held)
                  .anyMatch(
                      step ->
                          step.startsWith(
                              pod
                                  + " restarted warm on release 1.1.0: "
                                  + held
                                  + " of "
                                  + held
                                  + " replicas kept"));
            }
            assertThat(events)
                .anyMatch(
                    e -> e.startsWith("RolloutCompleted: release 1.0.0 -> 1.1.0 done on 5 pods"));
            for (Pod p :
                client
                    .pods()
                    .inNamespace(UPGRADE)
                    .withLabel("app.kubernetes.io/instance", UP)
                    .list()
                    .getItems()) {
              if (p.getMetadata().getName().matches(UP + "-(master|storage)-[0-9]+")) {
                assertThat(p.getMetadata().getAnnotations())
                    .as(p.getMetadata().getName())
                    .containsEntry("kvpool.io/release", "1.1.0");
                assertThat(p.getSpec().getContainers().get(0).getImage())
                    .isEqualTo("kvpool/data-plane:1.1.0");
                assertThat(restarts(p))
                    .as("%s container restarts", p.getMetadata().getName())
                    .isZero();
              }
            }
          }
          MasterStatus leader =
              Await.until(
                  "the leader to count 4 live storage nodes",
                  Duration.ofMinutes(2),
                  () -> Pools.servingLeader(client, UPGRADE, UP).orElse(null),
                  m -> m.aliveNodes() == 4);
          s.measured(
              "replicas per node after "
                  + replicasPerNode(UPGRADE, UP)
                  + "; leader objectsLost="
                  + leader.counters().objectsLost()
                  + " underReplicated="
                  + leader.counters().underReplicated());
          WorkloadPod.Result verify =
              workloads.run(UPGRADE, UP, "verify", KEYS, UP, 2, Duration.ofMinutes(4));
          s.measured(
              "objects lost "
                  + verify.number("lost")
                  + " ("
                  + verify.number("ok")
                  + "/"
                  + KEYS
                  + " read back byte-exact in "
                  + verify.number("millis")
                  + " ms)");
          assertThat(verify.succeeded())
              .as("verify pod %s: %s", verify.pod(), verify.summary())
              .isTrue();
          assertThat(verify.number("ok")).isEqualTo(KEYS);
          assertThat(verify.number("lost")).as("objects lost").isZero();
          upgradeRolledOut = true;
        });
  }

  @Test
  @Order(13)
  void scaleDownDrainsTheSurplusStorageNodeAndLosesNoObject() {
    String name = "scale storage 4 -> 3: the surplus node is drained first, 0 objects lost";
    if (!needs(name, upgradeRolledOut, "the upgraded pool of the rolling upgrade")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(15),
        diagnostics,
        List.of(UPGRADE, SYSTEM_NAMESPACE),
        s -> {
          String surplus = UP + "-storage-3";
          long held = replicasPerNode(UPGRADE, UP).getOrDefault(surplus, -1L);
          java.time.Instant started = java.time.Instant.now();
          KvCachePool edited = patchSpec(UPGRADE, UP, "{\"storage\":{\"replicas\":3}}");
          long generation = edited.getMetadata().getGeneration();
          KvCachePool done =
              Await.until(
                  "pool " + UP + " at 3/3 storage nodes without " + surplus,
                  Duration.ofMinutes(12),
                  Duration.ofSeconds(2),
                  progress(UPGRADE, UP),
                  p ->
                      observed(p, generation)
                          && Pools.ready(p)
                          && "3/3".equals(p.getStatus().getStorage())
                          && p.getStatus().getUpgrade() != null
                          && "Completed"
                              .equals(String.valueOf(p.getStatus().getUpgrade().getPhase()))
                          && client.pods().inNamespace(UPGRADE).withName(surplus).get() == null,
                  Pools::describe);
          Duration took = Duration.between(started, java.time.Instant.now());
          var upgrade = done.getStatus().getUpgrade();
          List<String> events =
              RolloutWatch.lines(RolloutWatch.events(client, UPGRADE, UP, started));
          E2eLog.info(
              "Events of the scale-down:\n  "
                  + String.join("\n  ", events)
                  + "\nstatus.upgrade: "
                  + upgrade);
          s.measured(
              "4 -> 3 in "
                  + E2eLog.seconds(took)
                  + "; "
                  + surplus
                  + " held "
                  + held
                  + " replicas; status.upgrade:"
                  + " drains="
                  + upgrade.getDrains()
                  + " bytesMoved="
                  + upgrade.getBytesMoved());
          int drained = indexOf(events, "DrainingStorageNode: draining " + surplus);
          int removed = indexOf(events, "StorageNodeRemoved: " + surplus);
          assertThat(drained).as("%s drained (events %s)", surplus, events).isNotNegative();
          assertThat(removed)
              .as("%s removed after its drain (events %s)", surplus, events)
              .isGreaterThan(drained);
          events.stream()
              .filter(e -> e.startsWith("RolloutStepDone: " + surplus))
              .findFirst()
              .ifPresent(e -> s.measured("Event " + e));
          assertThat(upgrade.getDrains()).isEqualTo(1);
          assertThat(upgrade.getBytesMoved()).as("bytes the drain moved").isPositive();

          MasterStatus leader =
              Await.until(
                  "the leader to serve 3 live storage nodes with every object at 2 replicas",
                  Duration.ofMinutes(2),
                  () -> Pools.servingLeader(client, UPGRADE, UP).orElse(null),
                  m ->
                      m.nodes().stream().filter(n -> n.nodeState() == NodeState.ALIVE).count() == 3
                          && m.counters().underReplicated() == 0);
          s.measured(
              "replicas per node after "
                  + replicasPerNode(UPGRADE, UP)
                  + "; leader objectsLost="
                  + leader.counters().objectsLost());
          WorkloadPod.Result verify =
              workloads.run(UPGRADE, UP, "verify", KEYS, UP, 2, Duration.ofMinutes(4));
          s.measured(
              "objects lost "
                  + verify.number("lost")
                  + " ("
                  + verify.number("ok")
                  + "/"
                  + KEYS
                  + " read back byte-exact)");
          assertThat(verify.succeeded())
              .as("verify pod %s: %s", verify.pod(), verify.summary())
              .isTrue();
          assertThat(verify.number("lost")).as("objects lost").isZero();
          assertThat(leader.counters().objectsLost()).as("objects the leader lost").isZero();
        });
  }

  @Test
  @Order(14)
  void upgradePoolIsDeletedWithItsMemoryFiles() {
    String name = "delete the upgrade pool and the memory files it left on the node";
    if (!needs(name, upgradeNamespaceCreated, "the upgrade pool's namespace")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(6),
        diagnostics,
        List.of(UPGRADE, SYSTEM_NAMESPACE),
        s -> {
          client.resources(KvCachePool.class).inNamespace(UPGRADE).withName(UP).delete();
          Await.until(
              "the pool's pods to be gone",
              Duration.ofMinutes(3),
              () ->
                  client
                      .pods()
                      .inNamespace(UPGRADE)
                      .withLabel("app.kubernetes.io/instance", UP)
                      .list()
                      .getItems(),
              List::isEmpty,
              pods -> pods.stream().map(p -> p.getMetadata().getName()).toList().toString());
          // a storage pod that stops cleanly keeps its memory files (and inventory) for a warm
          // restart
          WorkloadPod.Result cleared =
              hostFolders(UPGRADE, List.of(cluster.memoryFolder()), "clear");
          s.measured(
              "removed "
                  + cleared.summary().get("removed")
                  + " files and folders ("
                  + Long.parseLong(cleared.summary().getOrDefault("bytes", "0")) / (1024 * 1024)
                  + " MiB) from "
                  + cluster.memoryFolder());
          client.namespaces().withName(UPGRADE).delete();
        });
  }

  /**
   * Autoscaling on cache signals, end to end: a pool of 2 storage nodes of 16 MiB (min 2, max 4,
   * fullness target 40 %, windows of 20 s up and 30 s down) that a client pod fills to about 70 %
   * with R=2 values grows to 4 nodes on its own; the client puts more values, some of them onto the
   * new nodes, then removes most keys, and the pool shrinks back to 2 through drains that move what
   * the new nodes hold; every key kept reads back byte-exact. The Events and status.autoscaling are
   * logged.
   */
  @Test
  @Order(15)
  void autoscaledPoolGrowsUnderLoadAndShrinksBackToMinimumLosingNothing() {
    String name =
        "autoscaling (min 2, max 4): filled -> grows, keys removed -> shrinks to 2 by drains, 0 lost";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(12),
        diagnostics,
        List.of(AUTOSCALE, SYSTEM_NAMESPACE),
        s -> {
          String pool = "auto";
          // ~11.6 MiB of values, ~23 MiB with 2 replicas: ~72 % of 2 x 16 MiB, 48 % of 3 nodes,
          // 36 % of 4
          int keys = 720;
          int kept = 120; // of the first keys: ~2 MiB of values, 11 % of 2 nodes
          int more = 120; // put at 4 nodes, all kept: the drains must move those the new nodes hold
          namespace(AUTOSCALE);
          java.time.Instant created = java.time.Instant.now();
          client
              .resources(KvCachePool.class)
              .inNamespace(AUTOSCALE)
              .resource(
                  Pools.autoscaled(
                      Pools.pool(pool, images.release(), 1, 2, "16Mi", 2), 2, 4, 40, 10, 2, 15, 2))
              .create();
          awaitReady(AUTOSCALE, pool, Duration.ofMinutes(4));
          s.measured(
              "2/2 Ready "
                  + E2eLog.seconds(Duration.between(created, java.time.Instant.now()))
                  + " after create");

          WorkloadPod.Result put =
              workloads.run(AUTOSCALE, pool, "put", keys, "as", 2, Duration.ofMinutes(4));
          assertThat(put.succeeded()).as("put pod %s: %s", put.pod(), put.summary()).isTrue();
          java.time.Instant filled = java.time.Instant.now();
          s.measured(
              "put "
                  + keys
                  + " values ("
                  + put.number("bytes") / 1024
                  + " KiB, R=2) in "
                  + put.number("millis")
                  + " ms");
          KvCachePool grown =
              Await.until(
                  "the pool to grow to 4 Ready storage nodes on its own",
                  Duration.ofMinutes(4),
                  Duration.ofSeconds(2),
                  autoscalingProgress(AUTOSCALE, pool),
                  p ->
                      Pools.storageReplicas(p) == 4
                          && Pools.ready(p)
                          && "4/4".equals(p.getStatus().getStorage()),
                  Pools::describeAutoscaling);
          s.measured(
              "4/4 Ready "
                  + E2eLog.seconds(Duration.between(filled, java.time.Instant.now()))
                  + " after the put ended");
          List<ScalingDecision> ups = Pools.recentScaling(grown);
          assertThat(ups)
              .as("status.autoscaling.recentScaling")
              .isNotEmpty()
              .allSatisfy(
                  d -> {
                    assertThat(d.getAction()).isEqualTo("ScaleUp");
                    assertThat(d.getReason()).isEqualTo("TargetExceeded");
                    assertThat(d.getFullnessPercent())
                        .as("fullness the scale-up decided on")
                        .isGreaterThan(40.0);
                  });
          assertThat(ups.get(0).getToReplicas()).isEqualTo(4);
          assertThat(ups.get(ups.size() - 1).getFromReplicas()).isEqualTo(2);
          MasterStatus atFour =
              Await.until(
                  "the leader to count 4 live storage nodes",
                  Duration.ofMinutes(2),
                  () -> Pools.servingLeader(client, AUTOSCALE, pool).orElse(null),
                  m -> m.aliveNodes() == 4);
          s.measured(
              "grown in "
                  + ups.size()
                  + " scaling(s): "
                  + ups.stream()
                      .map(
                          d ->
                              d.getFromReplicas()
                                  + " -> "
                                  + d.getToReplicas()
                                  + " at fullness "
                                  + d.getFullnessPercent()
                                  + "%")
                      .toList()
                  + "; leader objectsLost="
                  + atFour.counters().objectsLost()
                  + ", evicted bytes so far "
                  + atFour.cacheSignals().evictedBytes());
          List<String> grownEvents = autoscaledEvents(AUTOSCALE, pool, created);
          assertThat(grownEvents)
              .as("StorageAutoscaled Events")
              .isNotEmpty()
              .allMatch(e -> e.contains("(TargetExceeded)"));

          WorkloadPod.Result putMore =
              workloads.run(AUTOSCALE, pool, "put", keys, more, "as", 2, Duration.ofMinutes(4));
          assertThat(putMore.succeeded())
              .as("put pod %s: %s", putMore.pod(), putMore.summary())
              .isTrue();
          Map<String, Long> onFour = replicasPerNode(AUTOSCALE, pool);
          s.measured("put " + more + " more values at 4 nodes; replicas per node " + onFour);
          assertThat(
                  onFour.getOrDefault(pool + "-storage-2", 0L)
                      + onFour.getOrDefault(pool + "-storage-3", 0L))
              .as("replicas on the nodes the scale-up added")
              .isPositive();

          // the load stops: the workload removes all but the first keys (each remove finds its key:
          // none was lost)
          java.time.Instant removing = java.time.Instant.now();
          WorkloadPod.Result removed =
              workloads.run(
                  AUTOSCALE, pool, "remove", kept, keys - kept, "as", 2, Duration.ofMinutes(4));
          assertThat(removed.succeeded())
              .as("remove pod %s: %s", removed.pod(), removed.summary())
              .isTrue();
          assertThat(removed.number("ok")).isEqualTo(keys - kept);
          java.time.Instant emptied = java.time.Instant.now();
          s.measured(
              "removed "
                  + removed.number("ok")
                  + "/"
                  + (keys - kept)
                  + " keys in "
                  + removed.number("millis")
                  + " ms");
          KvCachePool shrunk =
              Await.until(
                  "the pool to shrink back to 2 storage nodes through the drain",
                  Duration.ofMinutes(6),
                  Duration.ofSeconds(2),
                  autoscalingProgress(AUTOSCALE, pool),
                  p ->
                      Pools.storageReplicas(p) == 2
                          && Pools.ready(p)
                          && "2/2".equals(p.getStatus().getStorage())
                          && Pools.pods(client, AUTOSCALE, pool, "storage").size() == 2
                          && p.getStatus().getUpgrade() != null
                          && "Completed"
                              .equals(String.valueOf(p.getStatus().getUpgrade().getPhase())),
                  Pools::describeAutoscaling);
          s.measured(
              "back to 2/2 "
                  + E2eLog.seconds(Duration.between(emptied, java.time.Instant.now()))
                  + " after the keys were removed");
          var drains = shrunk.getStatus().getUpgrade();
          s.measured(
              "status.upgrade of the scale-down: drains="
                  + drains.getDrains()
                  + " bytesMoved="
                  + drains.getBytesMoved());
          assertThat(drains.getDrains()).as("storage nodes drained").isEqualTo(2);
          assertThat(drains.getBytesMoved())
              .as("bytes the drains moved off the added nodes")
              .isPositive();
          ScalingDecision down = Pools.recentScaling(shrunk).get(0);
          assertThat(down.getAction()).isEqualTo("ScaleDown");
          assertThat(down.getReason()).isEqualTo("TargetsMetWithFewerNodes");
          assertThat(down.getToReplicas()).isEqualTo(2);
          assertThat(Pools.recentScaling(shrunk))
              .as("no scale-down before the keys were being removed")
              .filteredOn(d -> "ScaleDown".equals(d.getAction()))
              .allSatisfy(d -> assertThat(java.time.Instant.parse(d.getTime())).isAfter(removing));

          MasterStatus atTwo =
              Await.until(
                  "the leader to serve 2 live storage nodes with every object at 2 replicas",
                  Duration.ofMinutes(2),
                  () -> Pools.servingLeader(client, AUTOSCALE, pool).orElse(null),
                  m ->
                      m.nodes().stream().filter(n -> n.nodeState() == NodeState.ALIVE).count() == 2
                          && m.counters().underReplicated() == 0);
          WorkloadPod.Result verify =
              workloads.run(AUTOSCALE, pool, "verify", kept, "as", 2, Duration.ofMinutes(4));
          WorkloadPod.Result verifyMore =
              workloads.run(AUTOSCALE, pool, "verify", keys, more, "as", 2, Duration.ofMinutes(4));
          s.measured(
              "objects lost "
                  + (verify.number("lost") + verifyMore.number("lost"))
                  + " ("
                  + (verify.number("ok") + verifyMore.number("ok"))
                  + "/"
                  + (kept + more)
                  + " kept keys read back byte-exact); leader objectsLost="
                  + atTwo.counters().objectsLost()
                  + " replicas per node "
                  + replicasPerNode(AUTOSCALE, pool));

          List<String> events =
              RolloutWatch.lines(RolloutWatch.events(client, AUTOSCALE, pool, created));
          KvCachePool last = Pools.get(client, AUTOSCALE, pool);
          E2eLog.info(
              "Events of the autoscaled pool:\n  "
                  + String.join("\n  ", events)
                  + "\nstatus.autoscaling.recentScaling (newest first):\n  "
                  + String.join(
                      "\n  ", Pools.recentScaling(last).stream().map(Pools::decision).toList())
                  + "\nstatus.autoscaling: owner="
                  + last.getStatus().getAutoscaling().getOwner()
                  + " desiredReplicas="
                  + last.getStatus().getAutoscaling().getDesiredReplicas()
                  + " lastDecision="
                  + Pools.decision(last.getStatus().getAutoscaling().getLastDecision())
                  + "\nstatus.cacheSignals: "
                  + last.getStatus().getCacheSignals());
          autoscaledEvents(AUTOSCALE, pool, created).forEach(e -> s.measured("Event " + e));
          assertThat(verify.succeeded())
              .as("verify pod %s: %s", verify.pod(), verify.summary())
              .isTrue();
          assertThat(verify.number("ok")).isEqualTo(kept);
          assertThat(verify.number("lost")).as("objects lost").isZero();
          assertThat(verifyMore.succeeded())
              .as("verify pod %s: %s", verifyMore.pod(), verifyMore.summary())
              .isTrue();
          assertThat(verifyMore.number("ok")).isEqualTo(more);
          assertThat(atTwo.counters().objectsLost()).as("objects the leader lost").isZero();
          assertThat(events)
              .as("the Events of the autoscaled pool")
              .anyMatch(
                  e ->
                      e.startsWith(
                          "StorageAutoscaled: storage nodes 4 -> 2 (TargetsMetWithFewerNodes)"));
          int drained = indexOf(events, "DrainingStorageNode: draining " + pool + "-storage-3");
          int removedNode = indexOf(events, "StorageNodeRemoved: " + pool + "-storage-3");
          assertThat(drained).as("%s-storage-3 drained (events %s)", pool, events).isNotNegative();
          assertThat(removedNode)
              .as("%s-storage-3 removed after its drain", pool)
              .isGreaterThan(drained);
          assertThat(indexOf(events, "StorageNodeRemoved: " + pool + "-storage-2"))
              .as("%s-storage-2 removed", pool)
              .isGreaterThan(
                  indexOf(events, "DrainingStorageNode: draining " + pool + "-storage-2"))
              .isNotNegative();
          client.namespaces().withName(AUTOSCALE).delete();
        });
  }

  /**
   * A router's view of a pool through a failover: a subscriber pod (labelled for the events' ports
   * only, endpoints and topic from the client ConfigMap, both sockets through the {@code
   * <pool>-master} Service) follows an HA pool while 500 keys are put, the leader pod is deleted
   * and 100 keys are removed under the new leader; it must end holding exactly the pool's 400 keys,
   * having applied batches of both leaderships.
   */
  @Test
  @Order(16)
  void eventsSubscriberFollowsThePoolThroughALeaderDeletion() {
    String name =
        "KV events: a subscriber pod follows an HA pool through a leader deletion to its key set";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(12),
        diagnostics,
        List.of(EVENTS, SYSTEM_NAMESPACE),
        s -> {
          namespace(EVENTS);
          KvCachePool pool = Pools.pool("ev", images.release(), 3, 2, "64Mi", 2);
          EventsSpec events = new EventsSpec();
          events.setEnabled(true);
          events.setModel("e2e-model");
          pool.getSpec().setEvents(events);
          client.resources(KvCachePool.class).inNamespace(EVENTS).resource(pool).create();
          awaitReady(EVENTS, "ev", Duration.ofMinutes(4));
          int put = 500;
          int removed = 100;
          String follower =
              workloads.startFollower(EVENTS, "ev", "ev", removed, put - removed, 2, 480);
          WorkloadPod.Result puts =
              workloads.run(EVENTS, "ev", "put", put, "ev", 2, Duration.ofMinutes(4));
          assertThat(puts.succeeded()).as("put: %s", puts.summary()).isTrue();
          long putDone = System.nanoTime();
          Await.until(
              "the follower to hold the " + put + " keys put",
              Duration.ofMinutes(3),
              Duration.ofMillis(500),
              () -> workloads.log(EVENTS, follower),
              log -> log.contains("FOLLOW held=" + put + " "),
              log -> log.lines().reduce((a, b) -> b).orElse("no log yet"));
          s.measured(
              "follower held the "
                  + put
                  + " keys "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - putDone))
                  + " after the put ended");

          Pools.Answer before = Pools.servingLeaderPod(client, EVENTS, "ev").orElseThrow();
          long started = System.nanoTime();
          client.pods().inNamespace(EVENTS).withName(before.pod()).delete();
          E2eLog.info(
              "deleted the leader " + before.pod() + " (view " + before.status().view() + ")");
          Pools.Answer after =
              Await.until(
                  "a master to lead and serve a new view",
                  Duration.ofMinutes(2),
                  Duration.ofMillis(250),
                  () -> Pools.servingLeaderPod(client, EVENTS, "ev").orElse(null),
                  a -> a.status().view() != before.status().view(),
                  a -> a.pod() + " view " + a.status().view());
          s.measured(
              "failover "
                  + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - started))
                  + " to "
                  + after.pod());
          WorkloadPod.Result removes =
              workloads.run(EVENTS, "ev", "remove", 0, removed, "ev", 2, Duration.ofMinutes(4));
          assertThat(removes.succeeded()).as("remove: %s", removes.summary()).isTrue();

          WorkloadPod.Result followed =
              workloads.awaitEnd(EVENTS, follower, "follow the pool", Duration.ofMinutes(6));
          assertThat(followed.succeeded())
              .as("the subscriber ends with the pool's key set: %s", followed.summary())
              .isTrue();
          s.measured(
              "subscriber holds the pool's "
                  + followed.number("held")
                  + " keys, batches of "
                  + followed.number("views")
                  + " leaderships ("
                  + followed.number("batches")
                  + " batches, "
                  + followed.number("gaps")
                  + " gaps, "
                  + followed.number("clears")
                  + " full announcements)");
          MasterStatus leader = Pools.masterStatus(client, EVENTS, after.pod());
          assertThat(leader.objectCount()).as("the new leader's objects").isEqualTo(put - removed);
          assertThat(leader.events()).as("the new leader's events").isNotNull();
          KvCachePool shown =
              Await.until(
                  "status.events.sequence to reach the follower's last sequence",
                  Duration.ofMinutes(2),
                  () -> Pools.get(client, EVENTS, "ev"),
                  p ->
                      p.getStatus() != null
                          && p.getStatus().getEvents() != null
                          && p.getStatus().getEvents().getSequence() >= followed.number("seq"),
                  Pools::describe);
          s.measured("status.events.sequence " + shown.getStatus().getEvents().getSequence());
          client.namespaces().withName(EVENTS).delete();
        });
  }

  @Test
  @Order(17)
  void diskTierPoolReadsBackAWorkingSetBeyondItsMemoryAndRepairsALostTier() {
    String name =
        "disk tier (emptyDir): 3x memory written at R=2 and read back; a deleted storage pod loses"
            + " its tier, nothing lost";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(12),
        diagnostics,
        List.of(DISK, SYSTEM_NAMESPACE),
        s -> {
          String pool = "tiered";
          // ~16.5 KiB a value on average: 3000 values are ~48 MiB, ~97 MiB with 2 replicas, three
          // times the pool's memory (2 x 16 MiB); each node's disk tier (128 MiB) takes the rest
          int keys = 3000;
          namespace(DISK);
          KvCachePool spec = Pools.pool(pool, images.release(), 1, 2, "16Mi", 2);
          DiskTierSpec disk = new DiskTierSpec();
          disk.setSize(new Quantity("128Mi"));
          disk.setFileSize(new Quantity("4Mi"));
          spec.getSpec().getStorage().setDisk(disk);
          client.resources(KvCachePool.class).inNamespace(DISK).resource(spec).create();
          awaitReady(DISK, pool, Duration.ofMinutes(4));

          WorkloadPod.Result put =
              workloads.run(DISK, pool, "put", keys, "d", 2, Duration.ofMinutes(6));
          assertThat(put.succeeded()).as("put pod %s: %s", put.pod(), put.summary()).isTrue();
          assertThat(put.number("ok")).isEqualTo(keys);
          s.measured(
              "put "
                  + keys
                  + " values ("
                  + put.number("bytes") / (1 << 20)
                  + " MiB, R=2) in "
                  + put.number("millis")
                  + " ms");
          WorkloadPod.Result verify =
              workloads.run(DISK, pool, "verify", keys, "d", 2, Duration.ofMinutes(6));
          assertThat(verify.succeeded())
              .as("verify pod %s: %s", verify.pod(), verify.summary())
              .isTrue();
          assertThat(verify.number("ok")).isEqualTo(keys);
          assertThat(verify.number("mismatched")).isZero();
          s.measured(
              "read back "
                  + verify.number("ok")
                  + "/"
                  + keys
                  + " byte-exact in "
                  + verify.number("millis")
                  + " ms");
          MasterStatus leader = Pools.servingLeader(client, DISK, pool).orElseThrow();
          assertThat(leader.counters().evictions()).as("values deleted to make room").isZero();
          assertThat(leader.nodes())
              .allSatisfy(
                  n -> {
                    assertThat(n.disk()).as("disk tier of %s", n.id()).isNotNull();
                    assertThat(n.disk().healthy()).isTrue();
                    assertThat(n.disk().usedBytes()).isPositive();
                  });
          KvCachePool tiered =
              Await.until(
                  "the pool's status to show its disk tier",
                  Duration.ofMinutes(1),
                  () -> Pools.get(client, DISK, pool),
                  p ->
                      p.getStatus() != null
                          && p.getStatus().getCacheSignals() != null
                          && p.getStatus().getCacheSignals().getTiers() != null
                          && p.getStatus().getCacheSignals().getTiers().stream()
                              .anyMatch(t -> "disk".equals(t.getName())),
                  Pools::describe);
          s.measured("tiers " + tiered.getStatus().getCacheSignals().getTiers());
          E2eLog.info(
              "$ kubectl -n "
                  + DISK
                  + " get kvcachepools -o yaml\n"
                  + kubectl.run("-n", DISK, "get", "kvcachepools", "-o", "yaml").strip());

          // an emptyDir goes with its pod: the replaced node comes back with an empty tier; every
          // value stays readable from the other node's memory and disk replicas
          String victim = pool + "-storage-1";
          String oldUid =
              client.pods().inNamespace(DISK).withName(victim).get().getMetadata().getUid();
          client.pods().inNamespace(DISK).withName(victim).delete();
          Await.until(
              victim + " to be recreated and Ready",
              Duration.ofMinutes(3),
              () -> client.pods().inNamespace(DISK).withName(victim).get(),
              p -> p != null && !oldUid.equals(p.getMetadata().getUid()) && podReady(p),
              KvPoolClusterIT::describePod);
          // Repairs copy into the new node's memory up to the high watermark and never spill into
          // its disk tier (Repairs: a repair never takes the pool over its high watermark), so the
          // objects beyond that stay at one replica: readable, counted under-replicated.
          MasterStatus repaired =
              Await.until(
                  victim + " re-registered and repairs under way",
                  Duration.ofMinutes(4),
                  () -> Pools.servingLeader(client, DISK, pool).orElse(null),
                  m ->
                      m.aliveNodes() == 2
                          && m.nodes().stream()
                              .anyMatch(
                                  n -> n.id().equals(victim) && n.nodeState() == NodeState.ALIVE)
                          && m.counters().repairs() > 0);
          s.measured(
              "after deleting "
                  + victim
                  + ": repairs="
                  + repaired.counters().repairs()
                  + " underReplicated="
                  + repaired.counters().underReplicated()
                  + " objectsLost="
                  + repaired.counters().objectsLost());
          assertThat(repaired.counters().objectsLost()).as("objects lost").isZero();
          WorkloadPod.Result after =
              workloads.run(DISK, pool, "verify", keys, "d", 2, Duration.ofMinutes(6));
          assertThat(after.succeeded()).as("verify after repair: %s", after.summary()).isTrue();
          assertThat(after.number("ok")).isEqualTo(keys);
          client.namespaces().withName(DISK).delete();
        });
  }

  /**
   * A disk tier on a node folder, with memory files on another: a storage pod deleted and replaced
   * on the same node comes back with both, rescans its tier, verifies every record and registers
   * its objects again, so at R=1 (no other copy anywhere) every value written, in memory or on
   * disk, reads back byte-exact.
   */
  @Test
  @Order(18)
  void diskTierOnANodeFolderOutlivesItsPodAtOneReplica() {
    String name =
        "disk tier (hostPath) + memory files: a deleted storage pod's replacement adopts both, R=1,"
            + " nothing lost";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(12),
        diagnostics,
        List.of(DISK_HOST, SYSTEM_NAMESPACE),
        s -> {
          namespace(DISK_HOST);
          List<String> folders = List.of(cluster.memoryFolder(), cluster.diskFolder());
          hostFolders(DISK_HOST, folders, "prepare");
          DiskTierSpec disk = new DiskTierSpec();
          disk.setSize(new Quantity("128Mi"));
          disk.setFileSize(new Quantity("4Mi"));
          DiskHostPath hostPath = new DiskHostPath();
          hostPath.setPath(cluster.diskFolder());
          disk.setHostPath(hostPath);
          tierOutlivesAStoragePod(s, DISK_HOST, "kept", disk);
          hostFolders(DISK_HOST, folders, "clear");
          client.namespaces().withName(DISK_HOST).delete();
        });
  }

  /**
   * The same on a PersistentVolumeClaim per storage pod, as a cluster with a storage provisioner
   * gives them: the StatefulSet's volumeClaimTemplates claim two PersistentVolumes of a class no
   * provisioner serves (node folders, made here), and the replacement of a deleted pod mounts the
   * claim of its predecessor.
   */
  @Test
  @Order(19)
  void diskTierOnAPersistentVolumeClaimOutlivesItsPodAtOneReplica() {
    String name =
        "disk tier (PersistentVolumeClaim) + memory files: a deleted storage pod's replacement"
            + " mounts its claim again, R=1, nothing lost";
    if (!needs(name, operatorAvailable, "the operator")) {
      return;
    }
    Scenario.run(
        name,
        Duration.ofMinutes(12),
        diagnostics,
        List.of(DISK_CLAIM, SYSTEM_NAMESPACE),
        s -> {
          String pool = "claimed";
          namespace(DISK_CLAIM);
          List<String> volumes =
              List.of(cluster.diskFolder() + "-pv-0", cluster.diskFolder() + "-pv-1");
          List<String> folders = new ArrayList<>(volumes);
          folders.add(cluster.memoryFolder());
          hostFolders(DISK_CLAIM, folders, "prepare");
          for (int i = 0; i < volumes.size(); i++) {
            client
                .persistentVolumes()
                .resource(
                    new PersistentVolumeBuilder()
                        .withNewMetadata()
                        .withName(DISK_CLAIM + "-" + i)
                        .endMetadata()
                        .withNewSpec()
                        .withStorageClassName(DISK_CLAIM_CLASS)
                        .withAccessModes("ReadWriteOnce")
                        .withCapacity(Map.of("storage", new Quantity("256Mi")))
                        .withPersistentVolumeReclaimPolicy("Retain")
                        .withNewHostPath()
                        .withPath(volumes.get(i))
                        .withType("Directory")
                        .endHostPath()
                        .endSpec()
                        .build())
                .serverSideApply();
          }
          DiskTierSpec disk = new DiskTierSpec();
          disk.setSize(new Quantity("128Mi"));
          disk.setFileSize(new Quantity("4Mi"));
          DiskVolumeClaim claim = new DiskVolumeClaim();
          claim.setStorageClassName(DISK_CLAIM_CLASS);
          disk.setVolumeClaim(claim);
          String claimName = ApiLimits.DISK_VOLUME + "-" + pool + "-storage-1";
          tierOutlivesAStoragePod(
              s,
              DISK_CLAIM,
              pool,
              disk,
              () ->
                  client
                      .persistentVolumeClaims()
                      .inNamespace(DISK_CLAIM)
                      .withName(claimName)
                      .get()
                      .getSpec()
                      .getVolumeName());
          client.persistentVolumeClaims().inNamespace(DISK_CLAIM).delete();
          Await.until(
              "the claims to be gone",
              Duration.ofMinutes(2),
              () -> client.persistentVolumeClaims().inNamespace(DISK_CLAIM).list().getItems(),
              List::isEmpty);
          for (int i = 0; i < volumes.size(); i++) {
            client.persistentVolumes().withName(DISK_CLAIM + "-" + i).delete();
          }
          hostFolders(DISK_CLAIM, folders, "clear");
          client.namespaces().withName(DISK_CLAIM).delete();
        });
  }

  /**
   * Prepares ({@code op} "prepare": empties, gives to the data plane's user) or clears node folders
   * in one pod; fails the scenario unless the pod succeeded. The summary is the last folder's.
   */
  private WorkloadPod.Result hostFolders(String namespace, List<String> folders, String op) {
    WorkloadPod.Result done =
        workloads.runHostFolders(namespace, folders, op, DATA_PLANE_UID, Duration.ofMinutes(3));
    assertThat(done.succeeded()).as("host folder pod %s: %s", done.pod(), done.summary()).isTrue();
    return done;
  }

  private void tierOutlivesAStoragePod(
      Scenario s, String namespace, String pool, DiskTierSpec disk) {
    tierOutlivesAStoragePod(s, namespace, pool, disk, () -> "");
  }

  /**
   * A pool of 2 storage nodes of 16 MiB at R=1 with memory files on {@link
   * E2eCluster#memoryFolder()} and {@code disk}: 3000 values (~16.5 KiB each, ~48 MiB, half again
   * the pool's memory: the rest moves to the disk tiers) put; storage-1's pod deleted; its
   * replacement registers what it kept, and every value reads back byte-exact. {@code volume} names
   * the volume under storage-1's tier, which must be the same before and after. The pool is deleted
   * at the end.
   */
  private void tierOutlivesAStoragePod(
      Scenario s, String namespace, String pool, DiskTierSpec disk, Supplier<String> volume) {
    int keys = 3000;
    KvCachePool spec = Pools.pool(pool, images.release(), 1, 2, "16Mi", 1);
    WarmRestartSpec warm = new WarmRestartSpec();
    warm.setEnabled(true);
    warm.setHostPath(cluster.memoryFolder());
    spec.getSpec().getStorage().setWarmRestart(warm);
    spec.getSpec().getStorage().setDisk(disk);
    client.resources(KvCachePool.class).inNamespace(namespace).resource(spec).create();
    awaitReady(namespace, pool, Duration.ofMinutes(4));

    WorkloadPod.Result put =
        workloads.run(namespace, pool, "put", keys, "h", 1, Duration.ofMinutes(6));
    assertThat(put.succeeded()).as("put pod %s: %s", put.pod(), put.summary()).isTrue();
    assertThat(put.number("ok")).isEqualTo(keys);
    String victim = pool + "-storage-1";
    MasterStatus.NodeStatus before =
        Pools.servingLeader(client, namespace, pool).orElseThrow().nodes().stream()
            .filter(n -> n.id().equals(victim))
            .findFirst()
            .orElseThrow();
    assertThat(before.disk()).as("disk tier of %s", victim).isNotNull();
    assertThat(before.disk().usedBytes()).as("bytes on %s's disk tier", victim).isPositive();
    String volumeBefore = volume.get();
    s.measured(
        "put "
            + keys
            + " values ("
            + put.number("bytes") / (1 << 20)
            + " MiB, R=1); "
            + victim
            + " held "
            + before.replicas()
            + " replicas, "
            + before.disk().usedBytes() / (1 << 20)
            + " MiB on its disk tier"
            + (volumeBefore.isEmpty() ? "" : " (volume " + volumeBefore + ")"));

    String oldUid =
        client.pods().inNamespace(namespace).withName(victim).get().getMetadata().getUid();
    long deleted = System.nanoTime();
    client.pods().inNamespace(namespace).withName(victim).delete();
    Await.until(
        victim + " to be recreated and Ready",
        Duration.ofMinutes(3),
        () -> client.pods().inNamespace(namespace).withName(victim).get(),
        p -> p != null && !oldUid.equals(p.getMetadata().getUid()) && podReady(p),
        KvPoolClusterIT::describePod);
    MasterStatus.NodeStatus after =
        Await.until(
            victim + " registered again with what it kept",
            Duration.ofMinutes(3),
            () ->
                Pools.servingLeader(client, namespace, pool).stream()
                    .flatMap(m -> m.nodes().stream())
                    .filter(n -> n.id().equals(victim) && n.nodeState() == NodeState.ALIVE)
                    .findFirst()
                    .orElse(null),
            n -> n.replicas() >= before.replicas());
    s.measured(
        victim
            + " back with "
            + after.replicas()
            + " replicas and "
            + after.disk().usedBytes() / (1 << 20)
            + " MiB on its tier "
            + E2eLog.seconds(Duration.ofNanos(System.nanoTime() - deleted))
            + " after the delete");
    assertThat(after.disk().usedBytes()).as("the tier it rescanned").isPositive();
    assertThat(volume.get()).as("the volume under %s's tier", victim).isEqualTo(volumeBefore);
    WorkloadPod.Result verify =
        workloads.run(namespace, pool, "verify", keys, "h", 1, Duration.ofMinutes(6));
    assertThat(verify.succeeded()).as("verify pod %s: %s", verify.pod(), verify.summary()).isTrue();
    assertThat(verify.number("ok")).isEqualTo(keys);
    assertThat(verify.number("mismatched")).isZero();
    s.measured("read back " + verify.number("ok") + "/" + keys + " byte-exact at R=1");

    client.resources(KvCachePool.class).inNamespace(namespace).withName(pool).delete();
    Await.until(
        "the pool's pods to be gone",
        Duration.ofMinutes(3),
        () ->
            client
                .pods()
                .inNamespace(namespace)
                .withLabel("app.kubernetes.io/instance", pool)
                .list()
                .getItems(),
        List::isEmpty);
  }

  /** "Reason: message" of the pool's StorageAutoscaled Events since {@code since}. */
  private static List<String> autoscaledEvents(
      String namespace, String pool, java.time.Instant since) {
    return RolloutWatch.lines(
        RolloutWatch.events(client, namespace, pool, since).stream()
            .filter(e -> "StorageAutoscaled".equals(e.getReason()))
            .toList());
  }

  /**
   * The pool, logging each change of its replica count, fullness and autoscaling decision as it
   * goes.
   */
  private static java.util.function.Supplier<KvCachePool> autoscalingProgress(
      String namespace, String name) {
    return new java.util.function.Supplier<>() {
      private String last = "";

      @Override
      public KvCachePool get() {
        KvCachePool pool = Pools.get(client, namespace, name);
        String now = Pools.describeAutoscaling(pool);
        if (!now.equals(last)) {
          E2eLog.info("  " + namespace + "/" + name + " " + now);
          last = now;
        }
        return pool;
      }
    };
  }

  /**
   * 1 master, 4 storage nodes of 64 MiB, R=2, warm restarts in the cluster's memory folder, on
   * release 1.0.0.
   */
  private static KvCachePool upgradePool() {
    KvCachePool pool = Pools.pool(UP, "1.0.0", 1, 4, "64Mi", 2);
    WarmRestartSpec warm = new WarmRestartSpec();
    warm.setEnabled(true);
    warm.setHostPath(cluster.memoryFolder());
    pool.getSpec().getStorage().setWarmRestart(warm);
    // a storage pod's replacement (stop, new container, JVM start, re-map) stays well within it on
    // a loaded
    // machine, so the leader never declares a restarting node dead and starts copying its replicas
    pool.getSpec().setNodeTtl("120s");
    UpgradeSpec upgrade = new UpgradeSpec();
    upgrade.setStepTimeout("5m");
    pool.getSpec().setUpgrade(upgrade);
    return pool;
  }

  /** Sets spec.version; returns the generation the change made. */
  private static long setVersion(String namespace, String name, String version) {
    return patchSpec(namespace, name, "{\"version\":\"" + version + "\"}")
        .getMetadata()
        .getGeneration();
  }

  /**
   * Changes spec fields as a user's {@code kubectl patch --type merge} does: no resourceVersion, so
   * the operator's status writes in between cannot make it fail with a conflict (a
   * read-modify-write {@code edit} can).
   */
  private static KvCachePool patchSpec(String namespace, String name, String specJson) {
    return client
        .resources(KvCachePool.class)
        .inNamespace(namespace)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":" + specJson + "}");
  }

  private static boolean observed(KvCachePool pool, long generation) {
    return pool != null
        && pool.getStatus() != null
        && pool.getStatus().getObservedGeneration() != null
        && pool.getStatus().getObservedGeneration() >= generation;
  }

  /**
   * Waits for status.upgrade to say Completed on {@code release} with every pod updated, and the
   * pool Ready.
   */
  private static KvCachePool awaitRollout(
      String namespace, String name, long generation, String release, int pods, Duration limit) {
    return Await.until(
        "the rollout of pool " + name + " to " + release + " to complete",
        limit,
        Duration.ofSeconds(2),
        progress(namespace, name),
        p ->
            observed(p, generation)
                && Pools.ready(p)
                && release.equals(p.getStatus().getCurrentVersion())
                && p.getStatus().getUpgrade() != null
                && "Completed".equals(String.valueOf(p.getStatus().getUpgrade().getPhase()))
                && release.equals(p.getStatus().getUpgrade().getTo())
                && Integer.valueOf(pods).equals(p.getStatus().getUpgrade().getUpdated())
                && Integer.valueOf(pods).equals(p.getStatus().getUpgrade().getTotal()),
        p ->
            Pools.describe(p)
                + " upgrade="
                + (p.getStatus() == null ? null : p.getStatus().getUpgrade()));
  }

  /** The pool, logging each new rollout phase and step as it goes. */
  private static java.util.function.Supplier<KvCachePool> progress(String namespace, String name) {
    return new java.util.function.Supplier<>() {
      private String last = "";

      @Override
      public KvCachePool get() {
        KvCachePool pool = Pools.get(client, namespace, name);
        var u = pool == null || pool.getStatus() == null ? null : pool.getStatus().getUpgrade();
        String now =
            u == null
                ? "no rollout"
                : u.getPhase()
                    + " "
                    + u.getUpdated()
                    + "/"
                    + u.getTotal()
                    + ": "
                    + (u.getCurrentStep() != null
                        ? u.getCurrentStep()
                        : "last step: " + u.getLastStep());
        if (!now.equals(last)) {
          E2eLog.info("  " + namespace + "/" + name + " rollout " + now);
          last = now;
        }
        return pool;
      }
    };
  }

  /** Data-plane pod name -> "uid restarts=N", what a restart or replacement changes. */
  private static Map<String, String> podIdentities(String namespace, String pool) {
    Map<String, String> ids = new java.util.TreeMap<>();
    for (Pod p :
        client
            .pods()
            .inNamespace(namespace)
            .withLabel("app.kubernetes.io/instance", pool)
            .list()
            .getItems()) {
      if (p.getMetadata().getName().matches(Pattern.quote(pool) + "-(master|storage)-[0-9]+")) {
        ids.put(p.getMetadata().getName(), p.getMetadata().getUid() + " restarts=" + restarts(p));
      }
    }
    return ids;
  }

  private static int restarts(Pod pod) {
    return pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null
        ? 0
        : pod.getStatus().getContainerStatuses().stream()
            .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
            .sum();
  }

  /** The releases the pool's data-plane pods record. */
  private static Set<String> releases(String namespace, String pool) {
    Set<String> releases = new java.util.TreeSet<>();
    for (Pod p :
        client
            .pods()
            .inNamespace(namespace)
            .withLabel("app.kubernetes.io/instance", pool)
            .list()
            .getItems()) {
      if (p.getMetadata().getName().matches(Pattern.quote(pool) + "-(master|storage)-[0-9]+")) {
        releases.add(
            String.valueOf(
                p.getMetadata().getAnnotations() == null
                    ? null
                    : p.getMetadata().getAnnotations().get("kvpool.io/release")));
      }
    }
    return releases;
  }

  private static String templateHash(String namespace, String statefulSet) {
    var sts = client.apps().statefulSets().inNamespace(namespace).withName(statefulSet).get();
    var meta = sts.getSpec().getTemplate().getMetadata();
    return meta.getAnnotations() == null
        ? null
        : meta.getAnnotations().get("kvpool.io/template-hash");
  }

  /** Storage node -> replicas it holds, as the serving leader counts them. */
  private static Map<String, Long> replicasPerNode(String namespace, String pool) {
    MasterStatus leader =
        Await.until(
            "the leader of " + pool + " to serve",
            Duration.ofMinutes(2),
            () -> Pools.servingLeader(client, namespace, pool).orElse(null),
            m -> true);
    Map<String, Long> replicas = new java.util.TreeMap<>();
    leader.nodes().stream()
        .filter(n -> n.nodeState() != NodeState.DEAD)
        .forEach(n -> replicas.put(n.id(), n.replicas()));
    return replicas;
  }

  private static int indexOf(List<String> lines, String prefix) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean needs(String scenario, boolean met, String what) {
    if (!met) {
      Scenario.skipped(scenario, "needs " + what + ", which did not come about");
    }
    return met;
  }

  private static void namespace(String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .serverSideApply();
    Await.until(
        "the default service account of " + name,
        Duration.ofMinutes(1),
        () -> client.serviceAccounts().inNamespace(name).withName("default").get() != null);
  }

  private static KvCachePool awaitReady(String namespace, String name, Duration limit) {
    return Await.until(
        "pool " + namespace + "/" + name + " to become Ready",
        limit,
        new java.util.function.Supplier<>() {
          private String last = "";

          @Override
          public KvCachePool get() {
            KvCachePool pool = Pools.get(client, namespace, name);
            String now = Pools.describe(pool);
            if (!now.equals(last)) {
              E2eLog.info("  " + namespace + "/" + now);
              last = now;
            }
            return pool;
          }
        },
        Pools::ready,
        Pools::describe);
  }

  private static boolean podReady(Pod pod) {
    return pod.getStatus() != null
        && pod.getStatus().getConditions() != null
        && pod.getStatus().getConditions().stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static String describePod(Pod pod) {
    return pod.getMetadata().getName()
        + " uid="
        + pod.getMetadata().getUid()
        + " phase="
        + (pod.getStatus() == null ? null : pod.getStatus().getPhase())
        + " ready="
        + podReady(pod)
        + " waiting="
        + waitingReason(pod);
  }

  private static String waitingReason(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return "";
    }
    return pod.getStatus().getContainerStatuses().stream()
        .map(
            c ->
                c.getState() == null || c.getState().getWaiting() == null
                    ? ""
                    : c.getState().getWaiting().getReason())
        .filter(r -> r != null && !r.isEmpty())
        .findFirst()
        .orElse("");
  }

  /** The pool's status message and condition messages, where a reason for humans would be. */
  private static String statusText(KvCachePool pool) {
    if (pool == null || pool.getStatus() == null) {
      return "";
    }
    StringBuilder text = new StringBuilder(String.valueOf(pool.getStatus().getMessage()));
    Optional.ofNullable(pool.getStatus().getConditions())
        .orElse(List.of())
        .forEach(c -> text.append(' ').append(c.getReason()).append(' ').append(c.getMessage()));
    return text.toString();
  }

  /**
   * Every object in the namespace whose owner is {@code uid}, and (transitively) what those own.
   */
  private static List<HasMetadata> ownedBy(String namespace, String uid) {
    List<HasMetadata> all = new ArrayList<>();
    all.addAll(client.apps().statefulSets().inNamespace(namespace).list().getItems());
    all.addAll(client.apps().controllerRevisions().inNamespace(namespace).list().getItems());
    all.addAll(client.pods().inNamespace(namespace).list().getItems());
    all.addAll(client.services().inNamespace(namespace).list().getItems());
    all.addAll(client.configMaps().inNamespace(namespace).list().getItems());
    all.addAll(client.secrets().inNamespace(namespace).list().getItems());
    all.addAll(client.serviceAccounts().inNamespace(namespace).list().getItems());
    all.addAll(client.rbac().roles().inNamespace(namespace).list().getItems());
    all.addAll(client.rbac().roleBindings().inNamespace(namespace).list().getItems());
    all.addAll(client.policy().v1().podDisruptionBudget().inNamespace(namespace).list().getItems());
    all.addAll(client.network().v1().networkPolicies().inNamespace(namespace).list().getItems());
    all.addAll(client.leases().inNamespace(namespace).list().getItems());
    Set<String> owners = new java.util.HashSet<>(Set.of(uid));
    List<HasMetadata> owned = new ArrayList<>();
    boolean grew = true;
    while (grew) {
      grew = false;
      for (HasMetadata o : all) {
        if (!owned.contains(o)
            && Stream.ofNullable(o.getMetadata().getOwnerReferences())
                .flatMap(List::stream)
                .map(OwnerReference::getUid)
                .anyMatch(owners::contains)) {
          owned.add(o);
          owners.add(o.getMetadata().getUid());
          grew = true;
        }
      }
    }
    return owned;
  }
}
