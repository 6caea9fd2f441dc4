package io.kvpool.e2e.cluster;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * kubectl against the suite's cluster, for what people read: {@code get -o wide}, {@code describe},
 * logs. The pinned kubectl that e2e/cluster/kube-binaries.sh builds is preferred (within the skew
 * of any 1.34–1.36 cluster); otherwise the one on PATH.
 */
public final class Kubectl {
  private final String binary;
  private final Path kubeconfig;

  public Kubectl(Path repoRoot, Path kubeconfig) {
    this.binary = pinned(repoRoot).map(Path::toString).orElse("kubectl");
    this.kubeconfig = kubeconfig;
  }

  /**
   * Output of {@code kubectl ARGS}, or the error it printed (never throws for a failing command).
   */
  public String run(String... args) {
    List<String> command = new ArrayList<>(List.of(binary, "--kubeconfig", kubeconfig.toString()));
    command.addAll(List.of(args));
    try {
      Command.Result result = Command.run(command, Map.of(), Duration.ofSeconds(60), false);
      return result.ok()
          ? result.output()
          : result.output() + "(kubectl exit code " + result.exitCode() + ")\n";
    } catch (RuntimeException e) {
      return "kubectl " + String.join(" ", args) + ": " + e.getMessage() + "\n";
    }
  }

  private static java.util.Optional<Path> pinned(Path repoRoot) {
    try {
      String version = Files.readString(repoRoot.resolve("e2e/cluster/kube-version")).trim();
      String dir =
          System.getenv()
              .getOrDefault("KUBE_API_TEST_DIR", System.getProperty("user.home") + "/.kubeapitest");
      Path kubectl = Path.of(dir, "k8s", version + "-linux-amd64", "kubectl");
      return Files.isExecutable(kubectl)
          ? java.util.Optional.of(kubectl)
          : java.util.Optional.empty();
    } catch (java.io.IOException e) {
      return java.util.Optional.empty();
    }
  }
}
