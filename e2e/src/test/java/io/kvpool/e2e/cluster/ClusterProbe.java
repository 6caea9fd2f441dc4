package io.kvpool.e2e.cluster;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Info;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.testcontainers.DockerClientFactory;

/**
 * Finds what {@link ClusterChoice} decides on: the kubeconfig variables, whether Docker could run
 * K3s, and whether the local cluster can start. Cheap: Docker is only asked when a socket or
 * DOCKER_HOST exists and no kubeconfig already decides, and the K3s image is looked up, never
 * pulled here.
 */
final class ClusterProbe {
  /** K3s of the Kubernetes minor the project pins; KVPOOL_E2E_K3S_IMAGE overrides it. */
  static final String DEFAULT_K3S_IMAGE = "rancher/k3s:v1.35.4-k3s1";

  private ClusterProbe() {}

  static String k3sImage() {
    String image = System.getenv("KVPOOL_E2E_K3S_IMAGE");
    return image == null || image.isBlank() ? DEFAULT_K3S_IMAGE : image;
  }

  static ClusterChoice.Findings findings(Path repoRoot) {
    String forced = System.getenv(ClusterChoice.FORCE_ENV);
    String e2eKubeconfig = System.getenv(ClusterChoice.KUBECONFIG_ENV);
    String kubeconfig = System.getenv("KUBECONFIG");
    List<String> readable = new ArrayList<>();
    for (String file : new String[] {e2eKubeconfig, kubeconfig}) {
      if (file != null
          && !file.isBlank()
          && Files.isRegularFile(Path.of(file))
          && Files.isReadable(Path.of(file))) {
        readable.add(file);
      }
    }
    boolean kubeconfigDecides = forced == null && !readable.isEmpty();
    boolean dockerNeeded =
        !kubeconfigDecides && (forced == null || forced.trim().equalsIgnoreCase("k3s"));
    ClusterChoice.Docker docker =
        dockerNeeded ? docker(k3sImage()) : ClusterChoice.Docker.unreachable("not asked");
    return new ClusterChoice.Findings(
        forced, e2eKubeconfig, kubeconfig, readable, docker, local(repoRoot));
  }

  static ClusterChoice.Local local(Path repoRoot) {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
      return new ClusterChoice.Local(false, "it runs on Linux only");
    }
    if (!Files.isRegularFile(repoRoot.resolve("e2e/cluster/up.sh"))) {
      return new ClusterChoice.Local(false, "e2e/cluster/up.sh is not in " + repoRoot);
    }
    if (!isRoot()) {
      return new ClusterChoice.Local(false, "it needs root (a bridge, iptables, cgroups, mounts)");
    }
    return new ClusterChoice.Local(true, null);
  }

  static ClusterChoice.Docker docker(String k3sImage) {
    String host = System.getenv("DOCKER_HOST");
    if ((host == null || host.isBlank()) && !Files.exists(Path.of("/var/run/docker.sock"))) {
      return ClusterChoice.Docker.unreachable(
          "no Docker daemon (DOCKER_HOST is unset and /var/run/docker.sock is absent)");
    }
    try {
      if (!DockerClientFactory.instance().isDockerAvailable()) {
        return ClusterChoice.Docker.unreachable("the Docker daemon does not answer");
      }
      DockerClient client = DockerClientFactory.lazyClient();
      Info info = client.infoCmd().exec();
      List<String> security =
          info.getSecurityOptions() == null ? List.of() : info.getSecurityOptions();
      for (String option : security) {
        if (option.contains("rootless")) {
          return new ClusterChoice.Docker(
              true, false, false, "Docker runs rootless: no privileged containers for K3s");
        }
      }
      boolean present;
      try {
        client.inspectImageCmd(k3sImage).exec();
        present = true;
      } catch (NotFoundException e) {
        present = false;
      }
      if (!present && !registryReachable()) {
        return new ClusterChoice.Docker(
            true, true, false, k3sImage + " is not present and Docker Hub is not reachable");
      }
      return new ClusterChoice.Docker(true, true, true, null);
    } catch (RuntimeException | Error e) {
      return ClusterChoice.Docker.unreachable("the Docker probe failed: " + e);
    }
  }

  private static boolean registryReachable() {
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
      HttpResponse<Void> response =
          http.send(
              HttpRequest.newBuilder(URI.create("https://registry-1.docker.io/v2/"))
                  .timeout(Duration.ofSeconds(5))
                  .method("HEAD", HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return response.statusCode() > 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static boolean isRoot() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.split("\\s+")[1].equals("0");
        }
      }
    } catch (IOException ignored) {
      // not Linux-like
    }
    return false;
  }
}
