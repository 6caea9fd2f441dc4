package io.kvpool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.kvpool.operator.common.StatusMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReconcileFailureTest {

  private static KubernetesClientException refused(
      int code, String kind, String name, String message) {
    return new KubernetesClientException(
        new StatusBuilder()
            .withCode(code)
            .withMessage(message)
            .withNewDetails()
            .withKind(kind)
            .withName(name)
            .endDetails()
            .build());
  }

  /**
   * The SDK's aggregated message embeds every cause's stack trace; the status gets one sentence per
   * cause.
   */
  @Test
  void anAggregatedFailureBecomesOneBoundedSentenceWithoutStackTraces() {
    Map<String, Exception> causes = new LinkedHashMap<>();
    causes.put(
        "pool-config",
        refused(
            409,
            "configmaps",
            "p-config",
            "Operation cannot be fulfilled on configmaps"
                + " \"p-config\": the object has been modified; please apply your changes to the latest version"));
    causes.put(
        "master-peer-service",
        refused(
            422,
            "services",
            "p-master-peers",
            "Service \"p-master-peers\" is"
                + " invalid: spec.clusterIPs[0]: Invalid value: []string{\"None\"}: may not change once set"));
    AggregatedOperatorException failure =
        new AggregatedOperatorException("Exception(s) during workflow execution.", causes);
    assertThat(failure.getMessage().length()).as("the SDK's own message").isGreaterThan(2_000);

    String described = ReconcileFailure.describe(failure);

    assertThat(described)
        .hasSizeLessThanOrEqualTo(StatusMessage.MAX_LENGTH)
        .doesNotContain("\tat ", "\n")
        .startsWith("ConfigMap p-config already exists and is not managed by this pool")
        .contains("delete or rename it");
  }

  @Test
  void aRefusalNamesTheObjectAndWhatTheServerSaid() {
    assertThat(
            ReconcileFailure.describe(
                refused(422, "services", "p-master", "Service \"p-master\" is invalid")))
        .isEqualTo("the API server refused Service p-master: Service \"p-master\" is invalid");
  }

  @Test
  void anythingElseIsItsTypeAndFirstLine() {
    assertThat(ReconcileFailure.describe(new IllegalStateException("first line\n\tat somewhere")))
        .isEqualTo("IllegalStateException: first line");
  }
}
