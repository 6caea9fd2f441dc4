package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.render.PoolKeys;
import io.kvpool.operator.render.PoolNames;
import io.kvpool.operator.render.Secrets;
import java.util.Optional;

/**
 * {@code <pool>-keys} ({@link Secrets#keys}), from the one that exists now. Its informer watches
 * the operator's Secrets; the client key Secret shares it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class KeysSecretDependent extends CRUDKubernetesDependentResource<Secret, KvCachePool> {

  public KeysSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected Secret desired(KvCachePool pool, Context<KvCachePool> context) {
    return Secrets.keys(pool, secret(context, PoolNames.keysSecret(pool)));
  }

  /**
   * The pool's admin token, as this Secret's informer holds it (the operator never reads a Secret
   * otherwise); empty for a pool without keys.
   */
  public static String adminToken(KvCachePool pool, Context<KvCachePool> context) {
    return secret(context, PoolNames.keysSecret(pool))
        .map(s -> PoolKeys.decode(s.getData()).getOrDefault(PoolKeys.ADMIN_TOKEN, ""))
        .orElse("");
  }

  static Optional<Secret> secret(Context<KvCachePool> context, String name) {
    return context
        .getSecondaryResourcesAsStream(Secret.class)
        .filter(s -> name.equals(s.getMetadata().getName()))
        .findFirst();
  }
}
