package io.kvpool.e2e.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.kvpool.testkube.RealKubeApiServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The chart lints, renders into the committed install bundle, and that bundle is accepted by a real
 * API server.
 */
@ExtendWith(RealKubeApiServer.class)
class InstallBundleTest {
  private final InstallBundle bundle = new InstallBundle(InstallBundle.repoRootFromBuild());

  @Test
  void chartLintsWithoutErrors() {
    LintResult result = new Helm(bundle.chart()).lint().strict().call();
    assertThat(result.isFailed()).as("helm lint: %s", result.getMessages()).isFalse();
  }

  @Test
  void chartShipsTheGeneratedCrdsUnchanged() throws IOException {
    Path generated = bundle.chart().getParent().getParent().resolve("crds");
    List<Path> crds;
    try (Stream<Path> files = Files.list(generated)) {
      crds =
          files
              .filter(p -> p.toString().endsWith(".yml") || p.toString().endsWith(".yaml"))
              .sorted()
              .toList();
    }
    assertThat(crds).as("generated CRDs under %s", generated).isNotEmpty();
    for (Path crd : crds) {
      Path shipped = bundle.chart().resolve("crds").resolve(crd.getFileName());
      assertThat(shipped).as("the chart must ship %s", crd.getFileName()).exists();
      assertThat(Files.readString(shipped))
          .as("%s in the chart", crd.getFileName())
          .isEqualTo(Files.readString(crd));
    }
  }

  @Test
  void committedInstallBundleMatchesTheChart() {
    String rendered = bundle.render();
    if (Boolean.getBoolean("kvpool.manifests.write")) {
      bundle.write(rendered);
    }
    if (!rendered.equals(bundle.readCommitted())) {
      fail(
          bundle.committed()
              + " differs from what the chart renders. Refresh it with:\n  "
              + InstallBundle.REFRESH_COMMAND);
    }
  }

  @Test
  void installBundleIsAcceptedByARealApiServer(KubernetesClient client) {
    List<HasMetadata> objects =
        client
            .load(new ByteArrayInputStream(bundle.render().getBytes(StandardCharsets.UTF_8)))
            .items();
    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .contains(
            "Namespace",
            "CustomResourceDefinition",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Deployment");

    for (HasMetadata object : objects) {
      client.resource(object).forceConflicts().serverSideApply();
    }
    for (HasMetadata object : objects) {
      assertThat(client.resource(object).get())
          .as("%s/%s after apply", object.getKind(), object.getMetadata().getName())
          .isNotNull();
      if (object instanceof CustomResourceDefinition crd) {
        client
            .resource(crd)
            .waitUntilCondition(
                c ->
                    c.getStatus() != null
                        && c.getStatus().getConditions().stream()
                            .anyMatch(
                                cond ->
                                    "Established".equals(cond.getType())
                                        && "True".equals(cond.getStatus())),
                30,
                java.util.concurrent.TimeUnit.SECONDS);
      }
    }
  }
}
