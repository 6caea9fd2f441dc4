package io.kvpool.cli;

import io.kvpool.protocol.Keys;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Checks of option values picocli cannot express; a failure is a usage error (exit code 2). */
final class Checks {

  private Checks() {
  }

  static ParameterException usage(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  static int range(CommandSpec spec, String option, int value, int min, int max) {
    if (value < min || value > max) {
      throw usage(spec, option + " must be between " + min + " and " + max + ", got " + value);
    }
    return value;
  }

  static void positive(CommandSpec spec, String option, java.time.Duration value) {
    if (value.isZero() || value.isNegative()) {
      throw usage(spec, option + " must be longer than 0, got " + value.toMillis() + "ms");
    }
  }

  /** A key the protocol accepts (1..4096 UTF-8 bytes), checked before anything is read or sent. */
  static String key(CommandSpec spec, String key) {
    String problem = Keys.problem(key);
    if (problem != null) {
      throw usage(spec, "invalid KEY: " + problem);
    }
    return key;
  }

  /**
   * The one kube config file {@code --kubeconfig} (or {@code KUBECONFIG}) names, or empty when none is given (the
   * bench then starts the test API server).
   */
  static java.util.Optional<java.nio.file.Path> kubeconfigFile(CommandSpec spec, String kubeconfig) {
    if (kubeconfig == null || kubeconfig.isBlank()) {
      return java.util.Optional.empty();
    }
    if (kubeconfig.contains(java.io.File.pathSeparator)) {
      throw usage(spec, "--kubeconfig (or KUBECONFIG) names several files (" + kubeconfig + "); give one");
    }
    java.nio.file.Path file = java.nio.file.Path.of(kubeconfig);
    if (!java.nio.file.Files.isRegularFile(file)) {
      throw new CommandFailedException("kube config " + file + ": no such file");
    }
    return java.util.Optional.of(file);
  }
}
