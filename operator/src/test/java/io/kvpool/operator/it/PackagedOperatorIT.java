package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.testkube.RealKubeApiServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The packaged Quarkus application ({@code java -jar target/quarkus-app/quarkus-run.jar}) as a user runs it,
 * against the real API server through a kubeconfig: CDI wiring, QOSDK configuration and leader election
 * (prod profile) included. Runs after {@code package} (failsafe).
 */
@ExtendWith(RealKubeApiServer.class)
class PackagedOperatorIT {
  private static final String NS = "packaged";

  @Test
  void thePackagedOperatorTakesTheLeaseAndReconcilesAPool(KubernetesClient client) throws Exception {
    client.resource(new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build()).serverSideApply();
    Path kubeconfig = Files.createTempFile("kvpool-operator-kubeconfig", ".yaml");
    Files.writeString(kubeconfig, RealKubeApiServer.kubeconfigYaml());
    Path log = Files.createTempFile("kvpool-operator", ".log");
    Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
    assertThat(jar).as("run 'package' first").exists();
    ProcessBuilder builder = new ProcessBuilder(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dquarkus.operator-sdk.namespaces=" + NS,
        "-Dquarkus.kubernetes-client.namespace=" + NS,
        "-Dquarkus.http.host=127.0.0.1",
        "-Dquarkus.http.port=0",
        "-jar", jar.toString()))
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    Process operator = builder.start();
    try {
      client.resource(TestPools.pool(NS, "packaged")).create();
      PoolObjects objects = new PoolObjects(client, NS);
      await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
          .failFast("operator exited", () -> !operator.isAlive())
          .until(() -> objects.allExist("packaged"));
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        KvCachePool pool = client.resources(KvCachePool.class).inNamespace(NS).withName("packaged").get();
        return pool.getStatus() != null && pool.getStatus().getPhase() != null;
      });
      Lease lease = client.leases().inNamespace(NS).withName("kvpool-operator").get();
      assertThat(lease).as("leader election lease").isNotNull();
      assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();
      assertProbesAnswer(log);
    } finally {
      operator.destroy();
      if (!operator.waitFor(20, TimeUnit.SECONDS)) {
        operator.destroyForcibly();
      }
      System.out.println("packaged operator log:\n" + tail(log));
      Files.deleteIfExists(kubeconfig);
      Files.deleteIfExists(log);
    }
  }

  /** The Helm chart's liveness and readiness probes point at these paths. */
  private static void assertProbesAnswer(Path log) throws Exception {
    Pattern listening = Pattern.compile("Listening on: (http://127\\.0\\.0\\.1:\\d+)");
    String base = Files.readAllLines(log).stream().map(listening::matcher).filter(Matcher::find)
        .map(m -> m.group(1)).findFirst().orElseThrow(() -> new AssertionError("no HTTP address in the operator log"));
    HttpClient http = HttpClient.newHttpClient();
    for (String probe : List.of("/q/health/live", "/q/health/ready")) {
      await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(http.send(
          HttpRequest.newBuilder(URI.create(base + probe)).build(), HttpResponse.BodyHandlers.ofString())
          .statusCode()).as(probe).isEqualTo(200));
    }
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }
}
