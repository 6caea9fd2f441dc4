package io.kvpool.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.testkube.RealKubeApiServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs kubectl against the test API server: the one built next to it by
 * e2e/cluster/kube-binaries.sh (same release as the server), else the kubectl on the PATH.
 */
final class Kubectl {
  private Kubectl() {}

  static String run(String... args) throws IOException, InterruptedException {
    Path kubeconfig = Files.createTempFile("kvpool-kubeconfig", ".yaml");
    try {
      Files.writeString(kubeconfig, RealKubeApiServer.kubeconfigYaml());
      List<String> command =
          new ArrayList<>(List.of(executable(), "--kubeconfig", kubeconfig.toString()));
      command.addAll(List.of(args));
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).as("kubectl %s: %s", String.join(" ", args), output).isZero();
      return output;
    } finally {
      Files.deleteIfExists(kubeconfig);
    }
  }

  private static String executable() throws IOException {
    Path versionFile = Path.of("..", "e2e", "cluster", "kube-version");
    if (Files.isRegularFile(versionFile)) {
      String configured = System.getenv("KUBE_API_TEST_DIR");
      Path dir =
          configured != null
              ? Path.of(configured)
              : Path.of(System.getProperty("user.home"), ".kubeapitest");
      Path kubectl =
          dir.resolve("k8s")
              .resolve(Files.readString(versionFile).strip() + "-linux-amd64")
              .resolve("kubectl");
      if (Files.isExecutable(kubectl)) {
        return kubectl.toString();
      }
    }
    return "kubectl";
  }
}
