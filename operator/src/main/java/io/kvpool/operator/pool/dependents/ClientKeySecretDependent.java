package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.PoolKeys;
import io.kvpool.operator.pool.PoolNames;
import java.util.Map;

/**
 * {@code <pool>-client-key}: only the client key, for inference pods ({@code KVPOOL_CLIENT_KEY} from a
 * secretKeyRef; the client ConfigMap names this Secret). Follows the keys Secret, which exists before it.
 */
public class ClientKeySecretDependent extends CRUDKubernetesDependentResource<Secret, KvCachePool> {

  public ClientKeySecretDependent() {
    super(Secret.class);
  }

  @Override
  protected Secret desired(KvCachePool pool, Context<KvCachePool> context) {
    Secret keys = KeysSecretDependent.secret(context, PoolNames.keysSecret(pool)).orElseThrow(() ->
        new IllegalStateException("the keys Secret " + PoolNames.keysSecret(pool) + " is not in the cache yet"));
    return desired(pool, keys);
  }

  public static Secret desired(KvCachePool pool, Secret keys) {
    return new SecretBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.clientKeySecret(pool)))
        .withType("Opaque")
        .withData(Map.of(PoolKeys.CLIENT_KEY, keys.getData().get(PoolKeys.CLIENT_KEY)))
        .build();
  }
}
