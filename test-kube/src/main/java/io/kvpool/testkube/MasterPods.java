package io.kvpool.testkube;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * Pod objects for masters that run as local processes: what a pool's StatefulSet would create,
 * never scheduled (the test API server has no kubelet), so that the masters have pods to label.
 */
public final class MasterPods {
  private MasterPods() {}

  /**
   * The namespace and pods {@code podPrefix-0..masters-1} in it, freshly created (any earlier pod
   * of that name deleted first).
   */
  public static void create(
      KubernetesClient client, String namespace, String podPrefix, int masters) {
    client
        .resource(
            new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build())
        .serverSideApply();
    for (int i = 0; i < masters; i++) {
      String name = podPrefix + "-" + i;
      client.pods().inNamespace(namespace).withName(name).delete();
      client
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(namespace)
                  .addToLabels("app.kubernetes.io/component", "master")
                  .endMetadata()
                  .withNewSpec()
                  .addNewContainer()
                  .withName("master")
                  .withImage("kvpool/data-plane:test")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
    }
  }
}
