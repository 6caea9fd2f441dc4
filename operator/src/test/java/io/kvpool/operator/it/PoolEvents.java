package io.kvpool.operator.it;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** The Events the operator published about the pools of one namespace. */
final class PoolEvents {
  private final KubernetesClient client;
  private final String namespace;

  PoolEvents(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  List<Event> about(String pool) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(
            e ->
                "KvCachePool".equals(e.getInvolvedObject().getKind())
                    && pool.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  long count(String pool, String reason) {
    return about(pool).stream().filter(e -> reason.equals(e.getReason())).count();
  }

  List<Event> all() {
    return client.v1().events().inNamespace(namespace).list().getItems();
  }
}
