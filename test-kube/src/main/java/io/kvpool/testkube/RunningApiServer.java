package io.kvpool.testkube;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubeapitest.KubeAPIServerConfigBuilder;
import io.fabric8.kubeapitest.KubeAPITestException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One kube-apiserver + etcd pair started by kube-api-test, with a client for it. Each instance gets its
 * own working folder (certificates, kubeconfig) that links to the shared binaries, so test JVMs of
 * different modules running at the same time never overwrite each other's certificates.
 */
final class RunningApiServer {

  private static final Logger LOG = LoggerFactory.getLogger(RunningApiServer.class);
  /**
   * System property that turns off installing the project's CRDs at start ("false"); only this module's own
   * tests set it, so that a broken project CRD fails the test about project CRDs, not every test here.
   */
  static final String INSTALL_PROJECT_CRDS = "kvpool.testkube.installProjectCrds";
  // Two contended cores: a cold kube-apiserver start takes well over kube-api-test's 60 s default there.
  private static final int STARTUP_TIMEOUT_MILLIS = 180_000;

  private final KubeAPIServer server;
  private final Path workDir;
  private final String kubeconfigYaml;
  private final KubernetesClient client;
  private final List<String> projectCrds;
  private boolean stopped;

  private RunningApiServer(KubeAPIServer server, Path workDir, String kubeconfigYaml, KubernetesClient client,
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
    Path workDir = workDirLinkedTo(binaries);
    KubeAPIServer server = new KubeAPIServer(KubeAPIServerConfigBuilder.anAPIServerConfig()
        .withTestDir(workDir.toString())
        .withApiServerVersion(binaries.version())
        .withOfflineMode(true)
        .withUpdateKubeConfig(false)
        .withWaitForEtcdHealthCheckOnStartup(true)
        .withStartupTimeout(STARTUP_TIMEOUT_MILLIS)
        // all addresses: pods of the test kubelet reach it from their own network namespaces
        .withApiServerFlag("--bind-address", "0.0.0.0")
        .build());
    long startedAt = System.nanoTime();
    try {
      server.start();
    } catch (KubeAPITestException e) {
      stopAfterFailedStart(server, workDir, e);
      throw new KubeTestSetupException("kube-apiserver " + binaries.version() + " from " + binaries.binaryDir()
          + " did not start: " + e.getMessage() + ". Its output is logged at DEBUG level under"
          + " io.fabric8.kubeapitest.process (slf4j-simple: -Dorg.slf4j.simpleLogger.log.io.fabric8.kubeapitest.process=debug);"
          + " re-run 'bash " + KubeBinaries.BINARIES_SCRIPT + "' if the binaries are broken.", e);
    }
    String kubeconfigYaml = server.getKubeConfigYaml();
    KubernetesClient client = newClient(kubeconfigYaml);
    LOG.info("kube-apiserver started version={} startupMillis={} server={}", binaries.version(),
        (System.nanoTime() - startedAt) / 1_000_000, client.getMasterUrl());
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
      deleteTree(workDir);
    }
    LOG.info("kube-apiserver stopped");
  }

  private static Path workDirLinkedTo(KubeBinaries binaries) {
    try {
      Path workDir = Files.createTempDirectory("kvpool-kube-api-");
      Path versionDir = workDir.resolve("k8s").resolve(binaries.binaryDir().getFileName());
      Files.createDirectories(versionDir.getParent());
      Files.createSymbolicLink(versionDir, binaries.binaryDir());
      return workDir;
    } catch (IOException e) {
      throw new KubeTestSetupException("Cannot prepare a working folder for kube-api-test under "
          + System.getProperty("java.io.tmpdir") + ": " + e.getMessage(), e);
    }
  }

  /** Cleans up after a failed start, keeping the start failure as the error the caller sees. */
  private static void stopAfterFailedStart(KubeAPIServer server, Path workDir, RuntimeException startFailure) {
    try {
      server.stop();
      deleteTree(workDir);
    } catch (RuntimeException cleanupFailure) {
      startFailure.addSuppressed(cleanupFailure);
    }
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      // Files.walk does not follow the k8s/<version> symlink, so only the link itself is deleted.
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete the kube-api-test working folder " + root, e);
    }
  }
}
