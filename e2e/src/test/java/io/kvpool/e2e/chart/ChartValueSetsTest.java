package io.kvpool.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FieldValidateable.Validation;
import io.kvpool.e2e.chart.ChartValueSets.ValueSet;
import io.kvpool.testkube.CustomResourceDefinitions;
import io.kvpool.testkube.RealKubeApiServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every documented value set renders, and the real API server accepts every rendered object in a
 * server-side dry run with strict field validation (unknown or misplaced fields fail); the operator
 * pod those values describe passes the "restricted" Pod Security admission.
 */
@ExtendWith(RealKubeApiServer.class)
class ChartValueSetsTest {
  private static final KvpoolChart CHART = KvpoolChart.fromBuild();

  /**
   * A namespace that enforces the restricted Pod Security Standard, for the operator pod's dry run.
   */
  private static final String RESTRICTED_NAMESPACE = "chart-restricted-pods";

  static List<ValueSet> valueSets() {
    return ChartValueSets.valid(CHART);
  }

  /**
   * The chart's CRDs (Helm installs them before the templates) and the ServiceMonitor kind, for
   * real.
   */
  @BeforeAll
  static void applyCrds() throws IOException {
    KubernetesClient client = RealKubeApiServer.client();
    List<CustomResourceDefinition> crds = new ArrayList<>();
    for (Path file : CHART.crdFiles()) {
      crds.addAll(loadCrds(client, Files.newInputStream(file)));
    }
    try (InputStream serviceMonitor =
        ChartValueSetsTest.class
            .getClassLoader()
            .getResourceAsStream("third-party-crds/servicemonitors.monitoring.coreos.com.yaml")) {
      crds.addAll(loadCrds(client, Objects.requireNonNull(serviceMonitor)));
    }
    crds.forEach(crd -> CustomResourceDefinitions.applyAndAwaitEstablished(client, crd));
    client
        .resource(
            new NamespaceBuilder()
                .withNewMetadata()
                .withName(RESTRICTED_NAMESPACE)
                .withLabels(
                    Map.of(
                        "pod-security.kubernetes.io/enforce",
                        "restricted",
                        "pod-security.kubernetes.io/enforce-version",
                        "latest"))
                .endMetadata()
                .build())
        .serverSideApply();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void everyRenderedObjectIsAcceptedByTheApiServer(ValueSet set, KubernetesClient client) {
    // A release of its own: the dry run is a first install, never a merge into objects other tests
    // applied.
    String release = "vs-" + Integer.toHexString(set.name().hashCode());
    List<HasMetadata> objects =
        KvpoolChart.objects(client, CHART.render(set.file(), release, release + "-system"));
    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .as("objects rendered from %s", set)
        .contains("Deployment");

    List<String> refused = new ArrayList<>();
    for (HasMetadata object : objects) {
      ensureNamespace(client, object.getMetadata().getNamespace());
      try {
        client.resource(object).dryRun().fieldValidation(Validation.STRICT).serverSideApply();
      } catch (KubernetesClientException e) {
        refused.add(
            object.getKind() + " " + object.getMetadata().getName() + ": " + e.getMessage());
      }
    }
    assertThat(refused).as("objects of %s the API server refused", set).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valueSets")
  void theOperatorPodPassesRestrictedPodSecurityAdmission(ValueSet set, KubernetesClient client) {
    Pod pod = operatorPod(client, set);
    try {
      client.resource(pod).dryRun().create();
    } catch (KubernetesClientException e) {
      fail(
          "the operator pod of "
              + set
              + " is refused in a namespace enforcing the restricted Pod Security"
              + " Standard: "
              + e.getMessage());
    }
  }

  /**
   * The admission check above is live: a pod that breaks the restricted standard is refused there.
   */
  @Test
  void aPodBreakingTheRestrictedStandardIsRefused(KubernetesClient client) {
    Pod pod = operatorPod(client, ChartValueSets.valid(CHART).get(0));
    pod.getSpec().getContainers().get(0).getSecurityContext().setAllowPrivilegeEscalation(true);

    assertThatThrownBy(() -> client.resource(pod).dryRun().create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("violates PodSecurity \"restricted:latest\"")
        .hasMessageContaining("allowPrivilegeEscalation");
  }

  /**
   * A pod made from the rendered Deployment's template, as the ReplicaSet controller would make it.
   */
  private static Pod operatorPod(KubernetesClient client, ValueSet set) {
    Deployment deployment =
        KvpoolChart.objects(client, CHART.render(set.file())).stream()
            .filter(Deployment.class::isInstance)
            .map(Deployment.class::cast)
            .findFirst()
            .orElseThrow(() -> new AssertionError("no Deployment rendered from " + set));
    return new PodBuilder()
        .withNewMetadata()
        .withName("operator-" + Integer.toHexString(set.name().hashCode()))
        .withNamespace(RESTRICTED_NAMESPACE)
        .withLabels(deployment.getSpec().getTemplate().getMetadata().getLabels())
        .endMetadata()
        .withSpec(deployment.getSpec().getTemplate().getSpec())
        .build();
  }

  private static void ensureNamespace(KubernetesClient client, String namespace) {
    if (namespace != null && client.namespaces().withName(namespace).get() == null) {
      client
          .resource(
              new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
          .serverSideApply();
    }
  }

  private static List<CustomResourceDefinition> loadCrds(KubernetesClient client, InputStream yaml)
      throws IOException {
    try (yaml) {
      return client.load(yaml).items().stream().map(CustomResourceDefinition.class::cast).toList();
    }
  }
}
