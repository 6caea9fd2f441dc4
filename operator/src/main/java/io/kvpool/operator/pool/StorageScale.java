package io.kvpool.operator.pool;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.kvpool.api.v1alpha1.KvCachePool;
import java.net.HttpURLConnection;

/**
 * Writes spec.storage.replicas as autoscaling decided, with a JSON merge patch of that one field
 * guarded by the pool's resourceVersion: a pool changed since it was read (by a user, an HPA) is
 * not overwritten; the API server answers 409 Conflict and the next reconciliation decides again on
 * what is there. The patch is sent for the pool object the reconciliation holds: a patch by name
 * alone would first GET the pool, a verb the operator's RBAC does not grant (the chart gives {@code
 * patch} on kvcachepools, nothing more).
 */
final class StorageScale {
  private StorageScale() {}

  /**
   * @return false when the pool changed since it was read (nothing written)
   */
  static boolean write(KubernetesClient client, KvCachePool pool, int replicas) {
    String patch =
        "{\"metadata\":{\"resourceVersion\":\""
            + pool.getMetadata().getResourceVersion()
            + "\"},"
            + "\"spec\":{\"storage\":{\"replicas\":"
            + replicas
            + "}}}";
    try {
      client
          .resources(KvCachePool.class)
          .inNamespace(pool.getMetadata().getNamespace())
          .resource(pool)
          .patch(PatchContext.of(PatchType.JSON_MERGE), patch);
      return true;
    } catch (KubernetesClientException e) {
      if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
        return false;
      }
      throw e;
    }
  }
}
