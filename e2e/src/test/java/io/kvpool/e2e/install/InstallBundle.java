package io.kvpool.e2e.install;

import com.marcnuri.helm.Helm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The plain-YAML install bundle {@code manifests/install.yaml}: the Helm chart rendered with its
 * default values into the {@value #NAMESPACE} namespace, CRDs included, behind the Namespace it
 * installs into (which enforces the restricted Pod Security Standard). Users without Helm apply it
 * with {@code kubectl apply --server-side -f manifests/install.yaml}.
 */
final class InstallBundle {
  static final String NAMESPACE = "kvpool-system";
  static final String RELEASE = "kvpool";
  static final String REFRESH_COMMAND =
      "./mvnw -pl e2e -am test -Dtest=InstallBundleTest -Dsurefire.failIfNoSpecifiedTests=false -Dkvpool.manifests.write=true";

  private final Path repoRoot;

  InstallBundle(Path repoRoot) {
    this.repoRoot = repoRoot;
  }

  Path chart() {
    return repoRoot.resolve("helm/kvpool");
  }

  Path committed() {
    return repoRoot.resolve("manifests/install.yaml");
  }

  String render() {
    String rendered =
        new Helm(chart())
            .template()
            .withName(RELEASE)
            .withNamespace(NAMESPACE)
            .withKubeVersion(kubeVersion())
            .call();
    return "# Generated from helm/kvpool (release "
        + RELEASE
        + ", namespace "
        + NAMESPACE
        + ", default values).\n"
        + "# Do not edit: refresh with "
        + REFRESH_COMMAND
        + "\n"
        + "---\n"
        + "apiVersion: v1\n"
        + "kind: Namespace\n"
        + "metadata:\n"
        + "  name: "
        + NAMESPACE
        + "\n"
        + "  labels:\n"
        // the operator pod meets the restricted Pod Security Standard (ChartValueSetsTest checks
        // it)
        + "    pod-security.kubernetes.io/enforce: restricted\n"
        + "    pod-security.kubernetes.io/enforce-version: latest\n"
        + chartCrds()
        + (rendered.startsWith("---") ? rendered : "---\n" + rendered);
  }

  /**
   * Helm's template leaves the chart's crds/ folder out; the bundle carries them, like
   * --include-crds.
   */
  private String chartCrds() {
    try (Stream<Path> files = Files.list(chart().resolve("crds"))) {
      StringBuilder crds = new StringBuilder();
      for (Path crd :
          files
              .filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
              .sorted()
              .toList()) {
        String yaml = Files.readString(crd);
        crds.append("---\n# Source: kvpool/crds/")
            .append(crd.getFileName())
            .append('\n')
            .append(yaml.startsWith("---\n") ? yaml.substring(4) : yaml);
        if (!yaml.endsWith("\n")) {
          crds.append('\n');
        }
      }
      return crds.toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Render for the Kubernetes release the project tests against (Helm otherwise assumes an old
   * one).
   */
  private String kubeVersion() {
    try {
      return "v" + Files.readString(repoRoot.resolve("e2e/cluster/kube-version")).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String readCommitted() {
    try {
      return Files.exists(committed()) ? Files.readString(committed()) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void write(String bundle) {
    try {
      Files.createDirectories(committed().getParent());
      Files.writeString(committed(), bundle);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Path repoRootFromBuild() {
    String root = System.getProperty("kvpool.repo.root");
    Path dir = root != null ? Path.of(root) : Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve(".mvn"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "cannot find the repository root (a folder holding .mvn/) above "
              + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
