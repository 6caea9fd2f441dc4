package io.kvpool.testkube;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One kube-apiserver + etcd pair started by kube-api-test ({@link ApiServerLaunch}: retried with
 * new ports when a start fails), with a client for it. Each instance gets its own working folder
 * (certificates, kubeconfig, the processes' output) that links to the shared binaries, so test JVMs
 * of different modules running at the same time never overwrite each other's certificates.
 */
final class RunningApiServer {

  private static final Logger LOG = LoggerFactory.getLogger(RunningApiServer.class);

  /**
   * System property that turns off installing the project's CRDs at start ("false"); only this
   * module's own tests set it, so that a broken project CRD fails the test about project CRDs, not
   * every test here.
   */
  static final String INSTALL_PROJECT_CRDS = "kvpool.testkube.installProjectCrds";

  private final KubeAPIServer server;
  private final Path workDir;
  private final String kubeconfigYaml;
  private final KubernetesClient client;
  private final List<String> projectCrds;
  private boolean stopped;

  private RunningApiServer(
      KubeAPIServer server,
      Path workDir,
      String kubeconfigYaml,
      KubernetesClient client,
      List<String> projectCrds) {
    this.server = server;
    this.workDir = workDir;
    this.kubeconfigYaml = kubeconfigYaml;
    this.client = client;
    this.projectCrds = projectCrds;
  }

  static RunningApiServer start(Path repositoryRoot) {
    KubeBinaries binaries = KubeBinaries.pinned(repositoryRoot);
    binaries.requireUsable();
    long startedAt = System.nanoTime();
    ApiServerLaunch.Launched launched =
        ApiServerLaunch.start(binaries, ApiServerLaunch.ATTEMPTS, attempt -> List.of());
    KubeAPIServer server = launched.server();
    Path workDir = launched.workDir();
    String kubeconfigYaml = server.getKubeConfigYaml();
    KubernetesClient client = newClient(kubeconfigYaml);
    LOG.info(
        "kube-apiserver started version={} startupMillis={} attempts={} server={}",
        binaries.version(),
        (System.nanoTime() - startedAt) / 1_000_000,
        launched.failures().size() + 1,
        client.getMasterUrl());
    List<String> crds = List.of();
    try {
      if (Boolean.parseBoolean(System.getProperty(INSTALL_PROJECT_CRDS, "true"))) {
        crds = ProjectCrds.install(client, ProjectCrds.folder(repositoryRoot));
      }
    } catch (RuntimeException e) {
      client.close();
      stopAfterFailedStart(server, workDir, e);
      throw e;
    }
    return new RunningApiServer(server, workDir, kubeconfigYaml, client, crds);
  }

  static KubernetesClient newClient(String kubeconfigYaml) {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfigYaml)).build();
  }

  KubernetesClient client() {
    return client;
  }

  String kubeconfigYaml() {
    return kubeconfigYaml;
  }

  List<String> projectCrds() {
    return projectCrds;
  }

  synchronized void stop() {
    if (stopped) {
      return;
    }
    stopped = true;
    client.close();
    try {
      server.stop();
    } finally {
      ApiServerLaunch.deleteTree(workDir);
    }
    LOG.info("kube-apiserver stopped");
  }

  /** Cleans up after a failed start, keeping the start failure as the error the caller sees. */
  private static void stopAfterFailedStart(
      KubeAPIServer server, Path workDir, RuntimeException startFailure) {
    try {
      server.stop();
      ApiServerLaunch.deleteTree(workDir);
    } catch (RuntimeException cleanupFailure) {
      startFailure.addSuppressed(cleanupFailure);
    }
  }
}
