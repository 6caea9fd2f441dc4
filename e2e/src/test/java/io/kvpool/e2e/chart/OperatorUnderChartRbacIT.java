package io.kvpool.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.kvpool.testkube.RealKubeApiServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The packaged operator ({@code operator/target/quarkus-app}) run with exactly what the chart gives
 * its pod: the environment of the rendered Deployment, and the rendered ServiceAccount's RBAC
 * (applied for real) through a token of that ServiceAccount, as in-cluster. It must take its Lease,
 * reconcile the documented example pool into all its objects (including the masters' Role, which it
 * can only grant because it holds those permissions), write both statuses (listing nodes for the
 * TransferEngine), publish an Event, and answer the rendered probes. Any verb the operator needs
 * and the chart lacks shows up as a missing object or status, or as an operator that stops
 * (informers that cannot list stop it). A second replica passes the probes as a standby. Runs after
 * the operator is packaged (failsafe).
 */
@ExtendWith(RealKubeApiServer.class)
class OperatorUnderChartRbacIT {
  private static final KvpoolChart CHART = KvpoolChart.fromBuild();
  private static final Duration DEADLINE = Duration.ofSeconds(180);

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "all namespaces (ClusterRole), it-cluster, it-cluster-pools, false",
    "namespaced (Roles), it-ns, it-ns-pools, true",
  })
  void theOperatorReconcilesPoolsWithTheChartsRbacOnly(
      String mode, String release, String pools, boolean namespaced) throws Exception {
    KubernetesClient admin = RealKubeApiServer.client();
    String namespace = release + "-system";
    Map<String, Object> sets = namespaced ? Map.of("watchNamespaces[0]", pools) : Map.of();
    List<HasMetadata> rendered =
        KvpoolChart.objects(admin, CHART.render(null, release, namespace, sets));
    ensureNamespace(admin, namespace);
    ensureNamespace(admin, pools);
    String serviceAccount = applyIdentityAndRbac(admin, rendered);
    Container container = operatorContainer(rendered);

    Path kubeconfig = Files.createTempFile("kvpool-operator-sa", ".kubeconfig");
    Files.writeString(kubeconfig, serviceAccountKubeconfig(admin, namespace, serviceAccount));
    Path log = Files.createTempFile("kvpool-operator-" + release, ".log");
    int port = freePort();
    Process operator = start(container, namespace, kubeconfig, log, port, "operator-0");
    boolean passed = false;
    try {
      applyExample(admin, pools, "manifests/examples/transferengine-ascend.yaml");
      applyExample(admin, pools, "manifests/examples/kvcachepool-ascend.yaml");
      admin.resource(brokenPool(pools)).serverSideApply();

      awaitOrFail(
          operator,
          log,
          "the operator holds its Lease " + namespace + "/kvpool-operator",
          () -> {
            Lease lease = admin.leases().inNamespace(namespace).withName("kvpool-operator").get();
            return lease != null && lease.getSpec().getHolderIdentity() != null;
          });
      for (String[] object : poolObjects("ascend-pool")) {
        awaitOrFail(
            operator,
            log,
            object[0] + " " + pools + "/" + object[1],
            () ->
                admin
                        .genericKubernetesResources(object[2], object[0])
                        .inNamespace(pools)
                        .withName(object[1])
                        .get()
                    != null);
      }
      awaitOrFail(
          operator,
          log,
          "the pool's status for its generation, without a reconcile error",
          () -> {
            GenericKubernetesResource pool =
                pools(admin).inNamespace(pools).withName("ascend-pool").get();
            Map<String, Object> status = pool.get("status");
            return status != null
                && pool.getMetadata()
                    .getGeneration()
                    .equals(asLong(status.get("observedGeneration")))
                && conditions(status).stream()
                    .noneMatch(c -> "ReconcileFailed".equals(c.get("reason")));
          });
      awaitOrFail(
          operator,
          log,
          "the TransferEngine's status, from listing the nodes",
          () -> {
            GenericKubernetesResource engine =
                admin
                    .genericKubernetesResources("kvpool.io/v1alpha1", "TransferEngine")
                    .inNamespace(pools)
                    .withName("ascend")
                    .get();
            Map<String, Object> status = engine.get("status");
            return status != null
                && conditions(status).stream()
                    .anyMatch(
                        c ->
                            "DevicesAvailable".equals(c.get("type"))
                                && "DeviceResourceNotAdvertised".equals(c.get("reason")));
          });
      awaitOrFail(
          operator,
          log,
          "the InvalidSpec Event about pool " + pools + "/broken",
          () ->
              admin.v1().events().inNamespace(pools).list().getItems().stream()
                  .anyMatch(
                      e ->
                          "broken".equals(e.getInvolvedObject().getName())
                              && "InvalidSpec".equals(e.getReason())));
      assertProbesAnswer(container, port, Duration.ofSeconds(30));
      assertAStandbyPassesTheProbes(admin, container, namespace, kubeconfig, release);
      passed = true;
    } finally {
      operator.destroy();
      if (!operator.waitFor(30, TimeUnit.SECONDS)) {
        operator.destroyForcibly();
      }
      if (!passed) {
        System.out.println("operator log (" + mode + "):\n" + tail(log, 80));
      }
      Files.deleteIfExists(kubeconfig);
      Files.deleteIfExists(log);
    }
  }

  /**
   * A second replica (values: replicas > 1) while the first leads: it must pass the same probes, or
   * a rolling update (maxUnavailable 0) would wait forever for a new pod that cannot lead before
   * the old one is gone.
   */
  private static void assertAStandbyPassesTheProbes(
      KubernetesClient admin,
      Container container,
      String namespace,
      Path kubeconfig,
      String release)
      throws Exception {
    Path log = Files.createTempFile("kvpool-standby-" + release, ".log");
    int port = freePort();
    Process standby = start(container, namespace, kubeconfig, log, port, "operator-1");
    boolean passed = false;
    try {
      assertProbesAnswer(container, port, Duration.ofSeconds(120));
      assertThat(
              admin
                  .leases()
                  .inNamespace(namespace)
                  .withName("kvpool-operator")
                  .get()
                  .getSpec()
                  .getHolderIdentity())
          .as("the Lease stays with the first replica")
          .isEqualTo("operator-0");
      assertThat(standby.isAlive()).as("the standby keeps running").isTrue();
      passed = true;
    } finally {
      standby.destroy();
      if (!standby.waitFor(30, TimeUnit.SECONDS)) {
        standby.destroyForcibly();
      }
      if (!passed) {
        System.out.println("standby log:\n" + tail(log, 60));
      }
      Files.deleteIfExists(log);
    }
  }

  /** Kind, name, apiVersion of every object MasterRoleDependent & co. create for a pool. */
  private static List<String[]> poolObjects(String pool) {
    return List.of(
        new String[] {"ServiceAccount", pool + "-master", "v1"},
        new String[] {"Role", pool + "-master", "rbac.authorization.k8s.io/v1"},
        new String[] {"RoleBinding", pool + "-master", "rbac.authorization.k8s.io/v1"},
        new String[] {"ConfigMap", pool + "-config", "v1"},
        new String[] {"ConfigMap", pool + "-client", "v1"},
        new String[] {"Service", pool + "-master", "v1"},
        new String[] {"Service", pool + "-master-peers", "v1"},
        new String[] {"Service", pool + "-storage", "v1"},
        new String[] {"StatefulSet", pool + "-master", "apps/v1"},
        new String[] {"StatefulSet", pool + "-storage", "apps/v1"},
        new String[] {"PodDisruptionBudget", pool + "-master", "policy/v1"},
        new String[] {"PodDisruptionBudget", pool + "-storage", "policy/v1"});
  }

  /**
   * Applies the ServiceAccount and the RBAC objects for real (no pod can run here); returns the
   * account.
   */
  private static String applyIdentityAndRbac(KubernetesClient admin, List<HasMetadata> rendered) {
    String serviceAccount = null;
    for (HasMetadata object : rendered) {
      switch (object.getKind()) {
        case "ServiceAccount" -> serviceAccount = object.getMetadata().getName();
        case "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding" -> {}
        default -> {
          continue;
        }
      }
      admin.resource(object).forceConflicts().serverSideApply();
    }
    assertThat(serviceAccount).as("rendered ServiceAccount").isNotNull();
    return serviceAccount;
  }

  private static Container operatorContainer(List<HasMetadata> rendered) {
    return rendered.stream()
        .filter(Deployment.class::isInstance)
        .map(Deployment.class::cast)
        .findFirst()
        .orElseThrow()
        .getSpec()
        .getTemplate()
        .getSpec()
        .getContainers()
        .get(0);
  }

  /**
   * The packaged operator with the container's environment; only the listen address and port are
   * local.
   */
  private static Process start(
      Container container, String namespace, Path kubeconfig, Path log, int port, String podName)
      throws IOException {
    Path jar = CHART.repoRoot().resolve("operator/target/quarkus-app/quarkus-run.jar");
    assertThat(jar).as("the packaged operator (./mvnw -pl operator -am package)").exists();
    ProcessBuilder builder =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    Map<String, String> env = builder.environment();
    for (EnvVar var : container.getEnv()) {
      if (var.getValue() != null) {
        env.put(var.getName(), var.getValue());
      } else if ("metadata.namespace".equals(var.getValueFrom().getFieldRef().getFieldPath())) {
        env.put(var.getName(), namespace);
      }
    }
    env.put("KUBECONFIG", kubeconfig.toString()); // in a pod: the mounted ServiceAccount token
    env.put("HOSTNAME", podName); // the pod name, the operator's Lease identity
    env.put("QUARKUS_HTTP_HOST", "127.0.0.1"); // servers under test listen on loopback only
    env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
    return builder.start();
  }

  /**
   * A kubeconfig that authenticates as the ServiceAccount with a token the API server issues for
   * it. It names no namespace: the operator's namespace (its Lease's) comes from the Deployment's
   * environment, as in a pod.
   */
  private static String serviceAccountKubeconfig(
      KubernetesClient admin, String namespace, String serviceAccount) throws IOException {
    String token =
        admin
            .serviceAccounts()
            .inNamespace(namespace)
            .withName(serviceAccount)
            .tokenRequest(
                new TokenRequestBuilder()
                    .withNewSpec()
                    .withExpirationSeconds(3600L)
                    .endSpec()
                    .build())
            .getStatus()
            .getToken();
    Config config = admin.getConfiguration();
    String ca =
        config.getCaCertData() != null
            ? config.getCaCertData()
            : Base64.getEncoder()
                .encodeToString(Files.readAllBytes(Path.of(config.getCaCertFile())));
    return """
                apiVersion: v1
                kind: Config
                clusters:
                - name: test
                  cluster:
                    server: %s
                    certificate-authority-data: %s
                users:
                - name: operator
                  user:
                    token: %s
                contexts:
                - name: operator
                  context:
                    cluster: test
                    user: operator
                current-context: operator
                """
        .formatted(config.getMasterUrl(), ca, token);
  }

  private static void assertProbesAnswer(Container container, int port, Duration deadline)
      throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    List<Probe> probes =
        List.of(
            container.getStartupProbe(),
            container.getReadinessProbe(),
            container.getLivenessProbe());
    for (Probe probe : probes) {
      HTTPGetAction get = probe.getHttpGet();
      assertThat(get.getPort().getStrVal()).isEqualTo(container.getPorts().get(0).getName());
      URI uri = URI.create("http://127.0.0.1:" + port + get.getPath());
      int status = -1;
      for (Instant end = Instant.now().plus(deadline);
          Instant.now().isBefore(end) && status != 200; ) {
        try {
          status =
              http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding())
                  .statusCode();
        } catch (IOException notListeningYet) {
          status = -1;
        }
        if (status != 200) {
          Thread.sleep(500);
        }
      }
      assertThat(status).as("probe %s", uri).isEqualTo(200);
    }
  }

  private static void awaitOrFail(
      Process operator, Path log, String what, BooleanSupplier condition)
      throws InterruptedException, IOException {
    Instant end = Instant.now().plus(DEADLINE);
    while (!condition.getAsBoolean()) {
      if (!operator.isAlive()) {
        throw new AssertionError(
            "the operator exited ("
                + operator.exitValue()
                + ") before "
                + what
                + ":\n"
                + tail(log, 60));
      }
      if (Instant.now().isAfter(end)) {
        throw new AssertionError("no " + what + " within " + DEADLINE.toSeconds() + " s");
      }
      Thread.sleep(500);
    }
  }

  private static void applyExample(KubernetesClient admin, String namespace, String file)
      throws IOException {
    try (InputStream yaml = Files.newInputStream(CHART.repoRoot().resolve(file))) {
      for (HasMetadata object : admin.load(yaml).items()) {
        object.getMetadata().setNamespace(namespace);
        admin.resource(object).serverSideApply();
      }
    }
  }

  /**
   * A pool that names a TransferEngine that does not exist: its status turns Degraded with an
   * Event.
   */
  private static GenericKubernetesResource brokenPool(String namespace) {
    GenericKubernetesResource pool = new GenericKubernetesResource();
    pool.setApiVersion("kvpool.io/v1alpha1");
    pool.setKind("KvCachePool");
    pool.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withName("broken")
            .withNamespace(namespace)
            .build());
    pool.setAdditionalProperty(
        "spec",
        Map.of(
            "version",
            "0.1.0",
            "storage",
            Map.of("replicas", 1, "memoryPerNode", "64Mi"),
            "objectReplicas",
            1,
            "transferEngineRef",
            Map.of("name", "nowhere")));
    return pool;
  }

  private static MixedOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      pools(KubernetesClient admin) {
    return admin.genericKubernetesResources("kvpool.io/v1alpha1", "KvCachePool");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> conditions(Map<String, Object> status) {
    Object conditions = status.get("conditions");
    return conditions == null ? List.of() : (List<Map<String, Object>>) conditions;
  }

  private static Long asLong(Object value) {
    return value == null ? null : ((Number) value).longValue();
  }

  private static void ensureNamespace(KubernetesClient admin, String namespace) {
    admin
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static String tail(Path log, int lines) throws IOException {
    if (!Files.exists(log)) {
      return "";
    }
    List<String> all =
        new ArrayList<>(List.of(Files.readString(log, StandardCharsets.UTF_8).split("\n")));
    return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
  }
}
