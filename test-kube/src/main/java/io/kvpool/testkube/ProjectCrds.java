package io.kvpool.testkube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The project's generated CustomResourceDefinitions, committed as YAML directly under {@code
 * <repo>/crds/}. Every test JVM gets them installed so operator tests see the same schema and CEL
 * rules users get.
 */
final class ProjectCrds {

  private static final Logger LOG = LoggerFactory.getLogger(ProjectCrds.class);

  private ProjectCrds() {}

  static Path folder(Path repositoryRoot) {
    return repositoryRoot.resolve("crds");
  }

  /**
   * Applies every CRD found and waits until each is Established; returns their names (none yet is
   * fine).
   */
  static List<String> install(KubernetesClient client, Path crdDir) {
    List<CustomResourceDefinition> crds = read(client, crdDir);
    crds.forEach(crd -> apply(client, crd, crdDir));
    List<String> names = crds.stream().map(crd -> crd.getMetadata().getName()).toList();
    names.forEach(name -> CustomResourceDefinitions.awaitEstablished(client, name));
    LOG.info("project CRDs installed dir={} crds={}", crdDir, names);
    return names;
  }

  private static void apply(KubernetesClient client, CustomResourceDefinition crd, Path crdDir) {
    try {
      client.resource(crd).forceConflicts().serverSideApply();
    } catch (KubernetesClientException e) {
      throw new KubeTestSetupException(
          "The API server refused CustomResourceDefinition "
              + crd.getMetadata().getName()
              + " from "
              + crdDir
              + ": "
              + e.getMessage()
              + ". Regenerate the project's CRDs from the Java types and commit them.",
          e);
    }
  }

  private static List<CustomResourceDefinition> read(KubernetesClient client, Path crdDir) {
    if (!Files.isDirectory(crdDir)) {
      return List.of();
    }
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (Path file : yamlFiles(crdDir)) {
      for (HasMetadata item : load(client, file)) {
        if (item instanceof CustomResourceDefinition crd) {
          crds.add(crd);
        }
      }
    }
    return crds;
  }

  private static List<Path> yamlFiles(Path crdDir) {
    try (Stream<Path> files = Files.list(crdDir)) {
      return files
          .filter(Files::isRegularFile)
          .filter(
              file ->
                  file.getFileName().toString().endsWith(".yml")
                      || file.getFileName().toString().endsWith(".yaml"))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new KubeTestSetupException("Cannot list the CRD folder " + crdDir + ".", e);
    }
  }

  private static List<HasMetadata> load(KubernetesClient client, Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return client.load(in).items();
    } catch (IOException | KubernetesClientException | IllegalArgumentException e) {
      throw new KubeTestSetupException(
          "Cannot read "
              + file
              + " as Kubernetes YAML: "
              + e.getMessage()
              + ". Regenerate the project's CRDs (they are built from the Java types) or fix the file.",
          e);
    }
  }
}
