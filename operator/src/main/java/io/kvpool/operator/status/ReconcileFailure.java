package io.kvpool.operator.status;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusDetails;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.AggregatedOperatorException;
import io.kvpool.operator.common.StatusMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Says in one sentence why applying a pool's objects failed, for its status and Events. The SDK's
 * aggregated exception message embeds every cause's stack trace (kilobytes each); those stay in the
 * operator's log, the status gets what a user can act on: which object, what the API server said,
 * what to do.
 */
public final class ReconcileFailure {
  private static final int MAX_CAUSES = 3;

  private ReconcileFailure() {}

  public static String describe(Throwable failure) {
    if (failure instanceof AggregatedOperatorException aggregated
        && !aggregated.getAggregatedExceptions().isEmpty()) {
      List<String> causes = new ArrayList<>();
      for (Map.Entry<String, Exception> entry : aggregated.getAggregatedExceptions().entrySet()) {
        if (causes.size() == MAX_CAUSES) {
          causes.add("and " + (aggregated.getAggregatedExceptions().size() - MAX_CAUSES) + " more");
          break;
        }
        causes.add(describeOne(entry.getValue()));
      }
      return StatusMessage.bound(String.join("; ", causes));
    }
    return StatusMessage.bound(describeOne(failure));
  }

  private static String describeOne(Throwable failure) {
    KubernetesClientException api = apiCause(failure);
    if (api != null) {
      return describeApi(api);
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root && root.getMessage() == null) {
      root = root.getCause();
    }
    return root.getClass().getSimpleName() + ": " + firstLine(root.getMessage());
  }

  private static KubernetesClientException apiCause(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof KubernetesClientException api) {
        return api;
      }
    }
    return null;
  }

  private static String describeApi(KubernetesClientException api) {
    Status status = api.getStatus();
    StatusDetails details = status == null ? null : status.getDetails();
    String object =
        details == null || details.getName() == null
            ? "an object of the pool"
            : singular(details.getKind()) + " " + details.getName();
    String said =
        status == null || status.getMessage() == null
            ? firstLine(api.getMessage())
            : status.getMessage();
    return switch (api.getCode()) {
      case 409 ->
          object
              + " already exists and is not managed by this pool (or changed while being created):"
              + " delete or rename it, the operator keeps retrying and then creates its own; the API server said: "
              + said;
      case 403 ->
          "the operator is not allowed to write "
              + object
              + "; grant it in the operator's RBAC; the API"
              + " server said: "
              + said;
      case 422, 400 -> "the API server refused " + object + ": " + said;
      case 0 ->
          "the API server could not be reached while writing "
              + object
              + ": "
              + firstLine(api.getMessage());
      default ->
          "the API server answered HTTP "
              + api.getCode()
              + " while writing "
              + object
              + ": "
              + said;
    };
  }

  /**
   * "configmaps" → "ConfigMap"-like readable kind; the API gives the resource name in lower-case
   * plural.
   */
  private static String singular(String kind) {
    if (kind == null || kind.isEmpty()) {
      return "object";
    }
    String lower = kind.toLowerCase(Locale.ROOT);
    return switch (lower) {
      case "configmaps" -> "ConfigMap";
      case "services" -> "Service";
      case "serviceaccounts" -> "ServiceAccount";
      case "roles" -> "Role";
      case "rolebindings" -> "RoleBinding";
      case "statefulsets" -> "StatefulSet";
      case "poddisruptionbudgets" -> "PodDisruptionBudget";
      default -> kind;
    };
  }

  private static String firstLine(String message) {
    if (message == null || message.isBlank()) {
      return "no message";
    }
    String line = message.strip().lines().findFirst().orElse("");
    return StatusMessage.bound(line, 300);
  }
}
