package io.kvpool.operator.it;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatusBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.LinkedHashMap;
import java.util.Map;

/** Reads the objects the operator creates for a pool. */
final class PoolObjects {
  private final KubernetesClient client;
  private final String namespace;

  PoolObjects(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
  }

  /** Every object of the pool by "Kind/name"; a missing one maps to null. */
  Map<String, HasMetadata> all(String pool) {
    Map<String, HasMetadata> objects = new LinkedHashMap<>();
    put(objects, ServiceAccount.class, pool + "-master");
    put(objects, Role.class, pool + "-master");
    put(objects, RoleBinding.class, pool + "-master");
    put(objects, ConfigMap.class, pool + "-config");
    put(objects, ConfigMap.class, pool + "-client");
    put(objects, StatefulSet.class, pool + "-master");
    put(objects, StatefulSet.class, pool + "-storage");
    put(objects, Service.class, pool + "-master");
    put(objects, Service.class, pool + "-master-peers");
    put(objects, Service.class, pool + "-storage");
    put(objects, PodDisruptionBudget.class, pool + "-master");
    put(objects, PodDisruptionBudget.class, pool + "-storage");
    return objects;
  }

  boolean allExist(String pool) {
    return all(pool).values().stream().allMatch(o -> o != null);
  }

  /** The "Kind/name" of every object of the pool that exists: empty when nothing was created. */
  java.util.List<String> existing(String pool) {
    return all(pool).entrySet().stream()
        .filter(e -> e.getValue() != null)
        .map(Map.Entry::getKey)
        .toList();
  }

  StatefulSet statefulSet(String name) {
    return client.apps().statefulSets().inNamespace(namespace).withName(name).get();
  }

  ConfigMap configMap(String name) {
    return client.configMaps().inNamespace(namespace).withName(name).get();
  }

  /**
   * What the StatefulSet controller would report once all pods of the current template are ready.
   */
  void markReady(String statefulSet) {
    markReady(statefulSet, -1);
  }

  /**
   * What the StatefulSet controller would report with {@code ready} pods ready (-1: all) on the
   * current template.
   */
  void markReady(String statefulSet, int ready) {
    client
        .apps()
        .statefulSets()
        .inNamespace(namespace)
        .withName(statefulSet)
        .editStatus(
            sts -> {
              int replicas = sts.getSpec().getReplicas();
              int readyReplicas = ready < 0 ? replicas : ready;
              sts.setStatus(
                  new StatefulSetStatusBuilder()
                      .withObservedGeneration(sts.getMetadata().getGeneration())
                      .withReplicas(replicas)
                      .withReadyReplicas(readyReplicas)
                      .withAvailableReplicas(readyReplicas)
                      .withUpdatedReplicas(replicas)
                      .withCurrentReplicas(replicas)
                      .withCurrentRevision(statefulSet + "-r1")
                      .withUpdateRevision(statefulSet + "-r1")
                      .build());
              return sts;
            });
  }

  private <T extends HasMetadata> void put(
      Map<String, HasMetadata> objects, Class<T> type, String name) {
    objects.put(
        type.getSimpleName() + "/" + name,
        client.resources(type).inNamespace(namespace).withName(name).get());
  }
}
