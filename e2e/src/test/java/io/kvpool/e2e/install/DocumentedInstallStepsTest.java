package io.kvpool.e2e.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.kvpool.testkube.CustomResourceDefinitions;
import io.kvpool.testkube.RealKubeApiServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The install commands of the docs (README.md "Running on Kubernetes", helm/kvpool/README.md,
 * operator/README.md), run with the real kubectl and Helm against a real API server, starting from
 * a cluster without kvpool's CRDs. Every kubectl apply in the docs is server-side, so they can
 * follow each other in any order.
 */
@ExtendWith(RealKubeApiServer.class)
class DocumentedInstallStepsTest {
  private static final List<String> CRDS =
      List.of("kvcachepools.kvpool.io", "transferengines.kvpool.io");

  private final Path repoRoot = InstallBundle.repoRootFromBuild();
  private Kubectl kubectl;

  @BeforeEach
  void startWithoutKvpoolCrds(KubernetesClient client) {
    kubectl = new Kubectl(repoRoot, RealKubeApiServer.kubeconfigYaml());
    for (String crd : CRDS) {
      deleteAndAwaitGone(client, crd);
    }
  }

  /**
   * Deletes a CRD and waits until the API server's CRD finalizer has removed it. That usually takes
   * a second; once in a CI run it took more than a minute right after the server had installed the
   * CRDs, so each wait that runs out touches the CRD (an update re-queues it for the finalizer at
   * once, whatever back-off it was in) and waits again, and a CRD still there after three minutes
   * fails with its state in the message.
   */
  private static void deleteAndAwaitGone(KubernetesClient client, String crd) {
    var resource = client.apiextensions().v1().customResourceDefinitions().withName(crd);
    resource.delete();
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (true) {
      try {
        resource.waitUntilCondition(Objects::isNull, 20, TimeUnit.SECONDS);
        return;
      } catch (KubernetesClientTimeoutException stillThere) {
        var left = resource.get();
        if (left == null) {
          return;
        }
        if (System.nanoTime() - end > 0) {
          throw new AssertionError(
              "CRD "
                  + crd
                  + " was not removed within 3 minutes of its deletion: "
                  + Serialization.asYaml(left),
              stillThere);
        }
        System.err.println(
            "CRD "
                + crd
                + " still there after its deletion (finalizers "
                + left.getMetadata().getFinalizers()
                + ", conditions "
                + left.getStatus().getConditions()
                + "); touching it so that the CRD finalizer takes it up again");
        try {
          resource.edit(
              c ->
                  new CustomResourceDefinitionBuilder(c)
                      .editMetadata()
                      .addToAnnotations("kvpool.io/test-nudge", Long.toString(System.nanoTime()))
                      .endMetadata()
                      .build());
        } catch (KubernetesClientException goneMeanwhile) {
          // removed between the get and the edit (404) or changed meanwhile (409): look again
        }
      }
    }
  }

  /**
   * The CRDs for an operator run outside the cluster (operator/README.md), then the bundle, then
   * both again.
   */
  @Test
  void crdsThenTheBundleThenBothAgain(KubernetesClient client) {
    assertSucceeds(kubectl.run("apply", "--server-side", "-f", "crds/"));
    assertSucceeds(kubectl.run("apply", "--server-side", "-f", "manifests/install.yaml"));
    assertSucceeds(kubectl.run("apply", "--server-side", "-f", "manifests/install.yaml"));
    assertSucceeds(kubectl.run("apply", "--server-side", "-f", "crds/"));
    assertSucceeds(
        kubectl.run("apply", "--server-side", "--force-conflicts", "-f", "helm/kvpool/crds/"));

    CRDS.forEach(crd -> CustomResourceDefinitions.awaitEstablished(client, crd));
    assertThat(
            client
                .apps()
                .deployments()
                .inNamespace(InstallBundle.NAMESPACE)
                .withName("kvpool-operator")
                .get())
        .as("the operator Deployment from manifests/install.yaml")
        .isNotNull();
  }

  /**
   * Why the docs say server-side everywhere: CRDs from a client-side apply conflict with the
   * bundle, until the documented take-over ({@code --server-side --force-conflicts}) is run once.
   */
  @Test
  void crdsFromAClientSideApplyAreTakenOverOnceAsDocumented() {
    assertSucceeds(kubectl.run("apply", "-f", "crds/"));
    Kubectl.Result conflict = kubectl.run("apply", "--server-side", "-f", "manifests/install.yaml");
    assertThat(conflict.succeeded())
        .as("server-side apply over client-side applied CRDs")
        .isFalse();
    assertThat(conflict.output())
        .contains("conflict with \"kubectl-client-side-apply\"")
        .contains(".spec.versions");

    assertSucceeds(kubectl.run("apply", "--server-side", "--force-conflicts", "-f", "crds/"));
    assertSucceeds(kubectl.run("apply", "--server-side", "-f", "manifests/install.yaml"));
  }

  /** helm install (CRDs created by Helm), then the documented CRD refresh and helm upgrade. */
  @Test
  void helmInstallThenTheDocumentedCrdRefreshAndUpgrade(KubernetesClient client) {
    String release = "kvpool-docs";
    String namespace = "kvpool-docs-system";
    Path chart = repoRoot.resolve("helm/kvpool");
    String kubeconfig = RealKubeApiServer.kubeconfigYaml();
    try {
      Release installed =
          new Helm(chart)
              .install()
              .withName(release)
              .withNamespace(namespace)
              .createNamespace()
              .withKubeConfigContents(kubeconfig)
              .call();
      assertThat(installed.getStatus()).isEqualTo("deployed");
      assertThat(installed.getOutput())
          .as("NOTES.txt")
          .contains("kubectl -n " + namespace + " rollout status");
      CRDS.forEach(crd -> CustomResourceDefinitions.awaitEstablished(client, crd));

      assertSucceeds(
          kubectl.run("apply", "--server-side", "--force-conflicts", "-f", "helm/kvpool/crds/"));
      Release upgraded =
          new Helm(chart)
              .upgrade()
              .withName(release)
              .withNamespace(namespace)
              .set("replicas", 2)
              .withKubeConfigContents(kubeconfig)
              .call();
      assertThat(upgraded.getStatus()).isEqualTo("deployed");
      Deployment operator =
          client.apps().deployments().inNamespace(namespace).withName(release + "-operator").get();
      assertThat(operator.getSpec().getReplicas()).isEqualTo(2);
    } finally {
      Helm.uninstall(release)
          .withNamespace(namespace)
          .withKubeConfigContents(kubeconfig)
          .ignoreNotFound()
          .call();
    }
  }

  private static void assertSucceeds(Kubectl.Result result) {
    assertThat(result.succeeded()).as("%s", result).isTrue();
  }
}
