package io.kvpool.e2e.install;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The kubectl of the pinned Kubernetes release (built next to kube-apiserver by
 * e2e/cluster/kube-binaries.sh), run as a user runs it: from the repository root, against a
 * kubeconfig file.
 */
final class Kubectl {
  /** What one kubectl run printed and how it ended. */
  record Result(List<String> command, int exitCode, String output) {
    boolean succeeded() {
      return exitCode == 0;
    }

    @Override
    public String toString() {
      return "$ kubectl " + String.join(" ", command) + "  (exit " + exitCode + ")\n" + output;
    }
  }

  private final Path binary;
  private final Path workDir;
  private final Path kubeconfig;

  Kubectl(Path repoRoot, String kubeconfigYaml) {
    this.workDir = repoRoot;
    this.binary = binaryDir(repoRoot).resolve("kubectl");
    try {
      this.kubeconfig = Files.createTempFile("kvpool-kubectl", ".kubeconfig");
      Files.writeString(kubeconfig, kubeconfigYaml);
      kubeconfig.toFile().deleteOnExit();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          binary + " is missing: run 'bash e2e/cluster/kube-binaries.sh'");
    }
  }

  Result run(String... args) {
    List<String> command = new ArrayList<>(List.of(binary.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder =
        new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true);
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    try {
      Process process = builder.start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(120, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "kubectl " + String.join(" ", args) + " did not finish in 120 s");
      }
      Result result = new Result(List.of(args), process.exitValue(), output);
      System.out.println(result);
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static Path binaryDir(Path repoRoot) {
    String dir = System.getenv("KUBE_API_TEST_DIR");
    Path base =
        dir != null && !dir.isBlank()
            ? Path.of(dir)
            : Path.of(System.getProperty("user.home"), ".kubeapitest");
    try {
      String version = Files.readString(repoRoot.resolve("e2e/cluster/kube-version")).strip();
      return base.resolve("k8s").resolve(version + "-linux-amd64");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
