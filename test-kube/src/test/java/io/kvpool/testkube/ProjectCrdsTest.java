package io.kvpool.testkube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The project's committed CRDs under crds/ are accepted by the real API server and become
 * Established.
 */
@ExtendWith(RealKubeApiServer.class)
class ProjectCrdsTest {

  @Test
  void installsEveryCommittedCrdAndWaitsUntilEstablished(KubernetesClient client)
      throws IOException {
    Path crdDir = ProjectCrds.folder(RepositoryRoot.find());

    List<String> installed = ProjectCrds.install(client, crdDir);

    assertThat(installed).hasSize(committedCrdFiles(crdDir));
    for (String name : installed) {
      CustomResourceDefinition crd =
          client.apiextensions().v1().customResourceDefinitions().withName(name).get();
      assertThat(CustomResourceDefinitions.isEstablished(crd)).as(name + " Established").isTrue();
    }
  }

  private static int committedCrdFiles(Path crdDir) throws IOException {
    if (!Files.isDirectory(crdDir)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(crdDir)) {
      return (int)
          files
              .map(file -> file.getFileName().toString())
              .filter(name -> name.endsWith(".yml") || name.endsWith(".yaml"))
              .count();
    }
  }
}
