package io.kvpool.bench.command;

import io.kvpool.cli.Checks;
import io.kvpool.cli.CommandFailedException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;

/** The {@code --kubeconfig} option of the benches whose masters elect their leader on a Lease. */
final class KubeconfigOption {

  private KubeconfigOption() {}

  /**
   * The one kube config file {@code --kubeconfig} (or {@code KUBECONFIG}) names, or empty when none
   * is given (the bench then starts the test API server).
   */
  static Optional<Path> file(CommandSpec spec, String kubeconfig) {
    if (kubeconfig == null || kubeconfig.isBlank()) {
      return Optional.empty();
    }
    if (kubeconfig.contains(File.pathSeparator)) {
      throw Checks.usage(
          spec, "--kubeconfig (or KUBECONFIG) names several files (" + kubeconfig + "); give one");
    }
    Path file = Path.of(kubeconfig);
    if (!Files.isRegularFile(file)) {
      throw new CommandFailedException("kube config " + file + ": no such file");
    }
    return Optional.of(file);
  }
}
