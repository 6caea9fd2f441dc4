package io.kvpool.e2e.chart;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The Helm chart under {@code helm/kvpool}, rendered in-process by helm-java (Helm 3, offline). */
final class KvpoolChart {
  static final String RELEASE = "kvpool";
  static final String NAMESPACE = "kvpool-system";

  private final Path repoRoot;

  KvpoolChart(Path repoRoot) {
    this.repoRoot = repoRoot;
  }

  static KvpoolChart fromBuild() {
    return new KvpoolChart(findRepoRoot());
  }

  Path repoRoot() {
    return repoRoot;
  }

  Path dir() {
    return repoRoot.resolve("helm/kvpool");
  }

  Path crdDir() {
    return dir().resolve("crds");
  }

  List<Path> crdFiles() {
    try (Stream<Path> files = Files.list(crdDir())) {
      return files
          .filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The Kubernetes release the project tests against; Helm would otherwise assume an old one. */
  String kubeVersion() {
    try {
      return "v" + Files.readString(repoRoot.resolve("e2e/cluster/kube-version")).trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code helm template} of the chart with the given values file (null: the chart's defaults
   * only).
   */
  String render(Path valuesFile) {
    return render(valuesFile, RELEASE, NAMESPACE);
  }

  /** {@code helm template} as release {@code release} into {@code namespace}. */
  String render(Path valuesFile, String release, String namespace) {
    return render(valuesFile, release, namespace, Map.of());
  }

  /** Like {@link #render(Path, String, String)}, plus {@code --set} values. */
  String render(Path valuesFile, String release, String namespace, Map<String, Object> sets) {
    TemplateCommand template =
        new Helm(dir())
            .template()
            .withName(release)
            .withNamespace(namespace)
            .withKubeVersion(kubeVersion());
    if (valuesFile != null) {
      template = template.withValuesFile(valuesFile);
    }
    for (Map.Entry<String, Object> set : sets.entrySet()) {
      template = template.set(set.getKey(), set.getValue());
    }
    return template.call();
  }

  /** The rendered objects, in the order Helm printed them (templates only, no CRDs). */
  static List<HasMetadata> objects(KubernetesClient client, String rendered) {
    return client.load(new ByteArrayInputStream(rendered.getBytes(StandardCharsets.UTF_8))).items();
  }

  static Path findRepoRoot() {
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
