package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.render.PoolNames;
import io.kvpool.operator.render.Secrets;

/**
 * {@code <pool>-client-key} ({@link Secrets#clientKey}): follows the keys Secret, which exists
 * before it.
 */
public class ClientKeySecretDependent extends CRUDKubernetesDependentResource<Secret, KvCachePool> {

  public ClientKeySecretDependent() {
    super(Secret.class);
  }

  @Override
  protected Secret desired(KvCachePool pool, Context<KvCachePool> context) {
    Secret keys =
        KeysSecretDependent.secret(context, PoolNames.keysSecret(pool))
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "the keys Secret "
                            + PoolNames.keysSecret(pool)
                            + " is not in the cache yet"));
    return Secrets.clientKey(pool, keys);
  }
}
