package io.kvpool.testkube;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The etcd, kube-apiserver and kubectl binaries of the pinned Kubernetes release, in the folder
 * layout kube-api-test reads: {@code <dir>/k8s/<version>-linux-amd64/}. Downloads cannot work on
 * the build machines, so a missing binary is a setup error pointing at the script that builds them.
 */
record KubeBinaries(Path apiTestDir, String version) {

  static final String BINARIES_SCRIPT = "e2e/cluster/kube-binaries.sh";
  static final String VERSION_FILE = "e2e/cluster/kube-version";
  private static final List<String> REQUIRED = List.of("etcd", "kube-apiserver", "kubectl");
  private static final Pattern RELEASE = Pattern.compile("\\d+\\.\\d+\\.\\d+");

  /** The release pinned in {@code e2e/cluster/kube-version}, in the folder the script fills. */
  static KubeBinaries pinned(Path repositoryRoot) {
    return new KubeBinaries(
        apiTestDirFromEnvironment(), readPinnedVersion(repositoryRoot.resolve(VERSION_FILE)));
  }

  Path binaryDir() {
    return apiTestDir.resolve("k8s").resolve(version + "-linux-amd64");
  }

  /**
   * Fails fast, with what to do, when a binary is missing or is not the pinned kube-apiserver
   * release.
   */
  void requireUsable() {
    requirePresent();
    requireApiServerVersion();
  }

  private void requirePresent() {
    List<String> missing =
        REQUIRED.stream().filter(name -> !Files.isExecutable(binaryDir().resolve(name))).toList();
    if (!missing.isEmpty()) {
      throw new KubeTestSetupException(
          "Kubernetes "
              + version
              + " test binaries "
              + missing
              + " are missing in "
              + binaryDir()
              + ". Run 'bash "
              + BINARIES_SCRIPT
              + "' from the repository root to build them"
              + " (see e2e/cluster/README.md for providing them by hand).");
    }
  }

  // kube-api-test would only notice a broken binary by waiting for its whole startup timeout.
  private void requireApiServerVersion() {
    Path apiServer = binaryDir().resolve("kube-apiserver");
    String reported;
    try {
      Process process =
          new ProcessBuilder(apiServer.toString(), "--version").redirectErrorStream(true).start();
      reported =
          new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        reported = "no answer to --version within 30s";
      }
    } catch (IOException e) {
      reported = e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubeTestSetupException(
          "Interrupted while checking " + apiServer + " --version.", e);
    }
    if (!reported.equals("Kubernetes v" + version)) {
      throw new KubeTestSetupException(
          apiServer
              + " is not kube-apiserver v"
              + version
              + " (it says: '"
              + reported
              + "'). Run 'bash "
              + BINARIES_SCRIPT
              + "' from the repository root to rebuild it.");
    }
  }

  private static Path apiTestDirFromEnvironment() {
    String configured = System.getenv("KUBE_API_TEST_DIR");
    if (configured != null && !configured.isBlank()) {
      return Path.of(configured).toAbsolutePath();
    }
    return Path.of(System.getProperty("user.home"), ".kubeapitest");
  }

  private static String readPinnedVersion(Path versionFile) {
    String version;
    try {
      version = Files.readString(versionFile).strip();
    } catch (IOException e) {
      throw new KubeTestSetupException(
          "Cannot read the pinned Kubernetes version from "
              + versionFile
              + ": expected one line like '1.35.4'.",
          e);
    }
    if (!RELEASE.matcher(version).matches()) {
      throw new KubeTestSetupException(
          "The pinned Kubernetes version '"
              + version
              + "' in "
              + versionFile
              + " is not of the form MAJOR.MINOR.PATCH (e.g. 1.35.4).");
    }
    return version;
  }
}
