package io.kvpool.operator.it;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Consumer;

/**
 * A test's read-modify-write of an object the operator also writes (its status): retried, as
 * client-go's RetryOnConflict does, when the operator's write came in between and the server
 * answered 409 Conflict.
 */
final class Edits {
  private static final int ATTEMPTS = 20;

  private Edits() {}

  static <T extends HasMetadata> T edit(
      KubernetesClient client, Class<T> kind, String namespace, String name, Consumer<T> change) {
    for (int attempt = 1; ; attempt++) {
      try {
        return client
            .resources(kind)
            .inNamespace(namespace)
            .withName(name)
            .edit(
                object -> {
                  change.accept(object);
                  return object;
                });
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409 || attempt == ATTEMPTS) {
          throw e;
        }
      }
    }
  }
}
