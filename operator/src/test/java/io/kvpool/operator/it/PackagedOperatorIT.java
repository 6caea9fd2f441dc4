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
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The packaged Quarkus application ({@code java -jar target/quarkus-app/quarkus-run.jar}) as a user
 * runs it, against the real API server through a kubeconfig: CDI wiring, QOSDK configuration and
 * leader election (prod profile) included. Runs after {@code package} (failsafe).
 */
@ExtendWith(RealKubeApiServer.class)
class PackagedOperatorIT {
  /** What a pod's grace period should never have to cover: SIGTERM to exit. */
  private static final Duration EXIT_AFTER_SIGTERM = Duration.ofSeconds(10);

  /**
   * Reconciles a pool while holding the lease, then exits within seconds of SIGTERM: JOSDK 5.2.1
   * alone deadlocks there (its stop-leading callback calls System.exit inside the shutdown hook)
   * and waits for SIGKILL.
   */
  @Test
  void thePackagedOperatorTakesTheLeaseReconcilesAPoolAndExitsOnSigterm(KubernetesClient client)
      throws Exception {
    String ns = "packaged";
    try (PackagedOperator operator = PackagedOperator.start(client, ns)) {
      client.resource(TestPools.pool(ns, "packaged")).create();
      PoolObjects objects = new PoolObjects(client, ns);
      await()
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(500))
          .failFast("operator exited", () -> !operator.process.isAlive())
          .until(() -> objects.allExist("packaged"));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                KvCachePool pool =
                    client.resources(KvCachePool.class).inNamespace(ns).withName("packaged").get();
                return pool.getStatus() != null && pool.getStatus().getPhase() != null;
              });
      Lease lease = client.leases().inNamespace(ns).withName("kvpool-operator").get();
      assertThat(lease).as("leader election lease").isNotNull();
      assertThat(lease.getSpec().getHolderIdentity()).isNotBlank();
      operator.assertProbesAnswer();

      long sigterm = System.nanoTime();
      operator.process.destroy();

      assertThat(operator.process.waitFor(EXIT_AFTER_SIGTERM.toSeconds(), TimeUnit.SECONDS))
          .as("exited within %s of SIGTERM while leading", EXIT_AFTER_SIGTERM)
          .isTrue();
      System.out.printf(
          "packaged operator exited %d ms after SIGTERM with code %d%n",
          (System.nanoTime() - sigterm) / 1_000_000, operator.process.exitValue());
      assertThat(operator.log())
          .contains("leadership released because the operator is shutting down");
    }
  }

  /**
   * Losing the lease to another holder while running still ends the process, so two leaders never
   * reconcile.
   */
  @Test
  void aLeaderThatLosesItsLeaseExits(KubernetesClient client) throws Exception {
    String ns = "packaged-lost";
    try (PackagedOperator operator = PackagedOperator.start(client, ns)) {
      await()
          .atMost(Duration.ofSeconds(120))
          .failFast("operator exited", () -> !operator.process.isAlive())
          .until(() -> client.leases().inNamespace(ns).withName("kvpool-operator").get() != null);

      Edits.edit(
          client,
          Lease.class,
          ns,
          "kvpool-operator",
          lease -> {
            lease.getSpec().setHolderIdentity("another-operator");
            lease.getSpec().setLeaseDurationSeconds(3600);
            lease.getSpec().setRenewTime(ZonedDateTime.now());
          });

      assertThat(operator.process.waitFor(60, TimeUnit.SECONDS))
          .as("exited after losing the lease")
          .isTrue();
      assertThat(operator.process.exitValue()).isEqualTo(1);
      assertThat(operator.log()).contains("lost the leader election lease while running");
    }
  }

  /**
   * {@code java -jar target/quarkus-app/quarkus-run.jar} limited to one namespace, logging to a
   * file.
   */
  private static final class PackagedOperator implements AutoCloseable {
    private final Process process;
    private final Path kubeconfig;
    private final Path log;

    private PackagedOperator(Process process, Path kubeconfig, Path log) {
      this.process = process;
      this.kubeconfig = kubeconfig;
      this.log = log;
    }

    static PackagedOperator start(KubernetesClient client, String ns) throws IOException {
      client
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .serverSideApply();
      Path kubeconfig = Files.createTempFile("kvpool-operator-kubeconfig", ".yaml");
      Files.writeString(kubeconfig, RealKubeApiServer.kubeconfigYaml());
      Path log = Files.createTempFile("kvpool-operator", ".log");
      Path jar = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
      assertThat(jar).as("run 'package' first").exists();
      ProcessBuilder builder =
          new ProcessBuilder(
                  List.of(
                      Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                      "-Dquarkus.operator-sdk.namespaces=" + ns,
                      "-Dquarkus.kubernetes-client.namespace=" + ns,
                      "-Dquarkus.http.host=127.0.0.1",
                      "-Dquarkus.http.port=0",
                      "-jar",
                      jar.toString()))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      builder.environment().put("KUBECONFIG", kubeconfig.toString());
      return new PackagedOperator(builder.start(), kubeconfig, log);
    }

    String log() throws IOException {
      return Files.readString(log);
    }

    /** The Helm chart's liveness and readiness probes point at these paths. */
    void assertProbesAnswer() throws Exception {
      Pattern listening = Pattern.compile("Listening on: (http://127\\.0\\.0\\.1:\\d+)");
      String base =
          Files.readAllLines(log).stream()
              .map(listening::matcher)
              .filter(Matcher::find)
              .map(m -> m.group(1))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no HTTP address in the operator log"));
      HttpClient http = HttpClient.newHttpClient();
      for (String probe : List.of("/q/health/live", "/q/health/ready")) {
        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () ->
                    assertThat(
                            http.send(
                                    HttpRequest.newBuilder(URI.create(base + probe)).build(),
                                    HttpResponse.BodyHandlers.ofString())
                                .statusCode())
                        .as(probe)
                        .isEqualTo(200));
      }
    }

    @Override
    public void close() throws Exception {
      if (process.isAlive()) {
        process.destroyForcibly();
        process.waitFor(20, TimeUnit.SECONDS);
      }
      List<String> lines = Files.readAllLines(log);
      System.out.println(
          "packaged operator log:\n"
              + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
      Files.deleteIfExists(kubeconfig);
      Files.deleteIfExists(log);
    }
  }
}
