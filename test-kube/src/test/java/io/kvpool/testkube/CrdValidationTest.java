package io.kvpool.testkube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.TextNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.ValidationRuleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The real API server enforces a CRD's OpenAPI schema, its CEL rules and its defaults: the
 * guarantees the operator's CRDs rely on. Uses a throwaway group so it never collides with the
 * project's CRDs.
 */
@ExtendWith(RealKubeApiServer.class)
class CrdValidationTest {

  private static final String GROUP = "test.kvpool.io";
  private static final String NAMESPACE = "crd-validation";
  private static final ResourceDefinitionContext WIDGETS =
      new ResourceDefinitionContext.Builder()
          .withGroup(GROUP)
          .withVersion("v1")
          .withKind("Widget")
          .withPlural("widgets")
          .withNamespaced(true)
          .build();

  @BeforeAll
  static void installWidgetCrd(KubernetesClient client) {
    CustomResourceDefinitions.applyAndAwaitEstablished(client, widgetCrd());
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(NAMESPACE).endMetadata().build())
        .serverSideApply();
  }

  @AfterAll
  static void removeWidgetCrd(KubernetesClient client) {
    client.apiextensions().v1().customResourceDefinitions().withName("widgets." + GROUP).delete();
  }

  @Test
  void refusesSchemaViolationWithFieldAndLimit(KubernetesClient client) {
    GenericKubernetesResource tooLarge =
        widget("too-large", Map.of("size", 100, "minReplicas", 1, "maxReplicas", 2));

    assertThatThrownBy(
            () ->
                client
                    .genericKubernetesResources(WIDGETS)
                    .inNamespace(NAMESPACE)
                    .resource(tooLarge)
                    .create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            refusal -> {
              assertThat(refusal.getCode()).isEqualTo(422);
              assertThat(refusal.getMessage())
                  .contains("Widget.test.kvpool.io \"too-large\" is invalid")
                  .contains("spec.size")
                  .contains("should be less than or equal to 64");
            });
  }

  @Test
  void refusesCelRuleViolationWithRuleMessage(KubernetesClient client) {
    GenericKubernetesResource inverted =
        widget("inverted", Map.of("size", 8, "minReplicas", 3, "maxReplicas", 2));

    assertThatThrownBy(
            () ->
                client
                    .genericKubernetesResources(WIDGETS)
                    .inNamespace(NAMESPACE)
                    .resource(inverted)
                    .create())
        .isInstanceOfSatisfying(
            KubernetesClientException.class,
            refusal -> {
              assertThat(refusal.getCode()).isEqualTo(422);
              assertThat(refusal.getMessage())
                  .contains("Widget.test.kvpool.io \"inverted\" is invalid")
                  .contains("spec: Invalid value")
                  .contains("minReplicas must not exceed maxReplicas");
            });
  }

  @Test
  void storesValidWidgetWithServerAppliedDefault(KubernetesClient client) {
    client
        .genericKubernetesResources(WIDGETS)
        .inNamespace(NAMESPACE)
        .resource(widget("valid", Map.of("size", 8, "minReplicas", 1, "maxReplicas", 3)))
        .create();

    GenericKubernetesResource stored =
        client.genericKubernetesResources(WIDGETS).inNamespace(NAMESPACE).withName("valid").get();

    assertThat(stored.<Integer>get("spec", "size")).isEqualTo(8);
    assertThat(stored.<Integer>get("spec", "minReplicas")).isEqualTo(1);
    assertThat(stored.<Integer>get("spec", "maxReplicas")).isEqualTo(3);
    assertThat(stored.<String>get("spec", "tier"))
        .as("default written by the server")
        .isEqualTo("standard");
  }

  private static GenericKubernetesResource widget(String name, Map<String, Object> spec) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(GROUP + "/v1")
        .withKind("Widget")
        .withNewMetadata()
        .withName(name)
        .withNamespace(NAMESPACE)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", spec))
        .build();
  }

  private static CustomResourceDefinition widgetCrd() {
    JSONSchemaProps spec =
        new JSONSchemaPropsBuilder()
            .withType("object")
            .withRequired("size", "minReplicas", "maxReplicas")
            .addToProperties("size", integer(1.0, 64.0))
            .addToProperties("minReplicas", integer(0.0, null))
            .addToProperties("maxReplicas", integer(0.0, null))
            .addToProperties(
                "tier",
                new JSONSchemaPropsBuilder()
                    .withType("string")
                    .withEnum(new TextNode("standard"), new TextNode("fast"))
                    .withDefault(new TextNode("standard"))
                    .build())
            .withXKubernetesValidations(
                new ValidationRuleBuilder()
                    .withRule("self.minReplicas <= self.maxReplicas")
                    .withMessage("minReplicas must not exceed maxReplicas")
                    .build())
            .build();
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata()
        .withName("widgets." + GROUP)
        .endMetadata()
        .withNewSpec()
        .withGroup(GROUP)
        .withScope("Namespaced")
        .withNewNames()
        .withKind("Widget")
        .withPlural("widgets")
        .withSingular("widget")
        .endNames()
        .addNewVersion()
        .withName("v1")
        .withServed(true)
        .withStorage(true)
        .withNewSchema()
        .withNewOpenAPIV3Schema()
        .withType("object")
        .addToProperties("spec", spec)
        .endOpenAPIV3Schema()
        .endSchema()
        .endVersion()
        .endSpec()
        .build();
  }

  private static JSONSchemaProps integer(Double minimum, Double maximum) {
    return new JSONSchemaPropsBuilder()
        .withType("integer")
        .withMinimum(minimum)
        .withMaximum(maximum)
        .build();
  }
}
