package io.kvpool.testkube;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientTimeoutException;
import java.util.concurrent.TimeUnit;

/**
 * Applies CustomResourceDefinitions to the real API server and waits until they serve their kinds.
 */
public final class CustomResourceDefinitions {

  private static final long ESTABLISHED_TIMEOUT_SECONDS = 60;

  private CustomResourceDefinitions() {}

  /**
   * Server-side applies {@code crd} (taking over fields from earlier appliers, so a changed CRD
   * replaces the old one) and returns once the server reports it Established: before that, requests
   * for its kind fail with 404.
   */
  public static CustomResourceDefinition applyAndAwaitEstablished(
      KubernetesClient client, CustomResourceDefinition crd) {
    client.resource(crd).forceConflicts().serverSideApply();
    return awaitEstablished(client, crd.getMetadata().getName());
  }

  public static CustomResourceDefinition awaitEstablished(KubernetesClient client, String crdName) {
    try {
      return client
          .apiextensions()
          .v1()
          .customResourceDefinitions()
          .withName(crdName)
          .waitUntilCondition(
              CustomResourceDefinitions::isEstablished,
              ESTABLISHED_TIMEOUT_SECONDS,
              TimeUnit.SECONDS);
    } catch (KubernetesClientTimeoutException e) {
      throw new KubeTestSetupException(
          "CustomResourceDefinition "
              + crdName
              + " did not become Established within "
              + ESTABLISHED_TIMEOUT_SECONDS
              + "s; its status conditions say why (e.g. a NamesAccepted conflict).",
          e);
    }
  }

  static boolean isEstablished(CustomResourceDefinition crd) {
    return crd != null
        && crd.getStatus() != null
        && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(
                condition ->
                    "Established".equals(condition.getType())
                        && "True".equals(condition.getStatus()));
  }
}
