package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.PoolKeys;
import io.kvpool.operator.pool.PoolNames;
import java.util.Map;
import java.util.Optional;

/**
 * {@code <pool>-keys}: the pool's cluster key, client key and admin token, mounted into master and storage pods
 * (never into a ConfigMap, a status, an Event or a log line). Made once with random values and kept; rotated when
 * the pool's {@value PoolKeys#ROTATE_ANNOTATION} annotation asks for it. Its informer watches the operator's
 * Secrets; the client key Secret shares it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class KeysSecretDependent extends CRUDKubernetesDependentResource<Secret, KvCachePool> {

  public KeysSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected Secret desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool, secret(context, PoolNames.keysSecret(pool)));
  }

  /** The keys Secret of {@code pool} given the one that exists now, if any. */
  public static Secret desired(KvCachePool pool, Optional<Secret> existing) {
    Map<String, String> current = PoolKeys.decode(existing.map(Secret::getData).orElse(null));
    String served = existing.map(s -> s.getMetadata().getAnnotations()).map(a -> a.get(PoolKeys.ROTATED_FOR_ANNOTATION))
        .orElse(null);
    String requested = pool.getMetadata().getAnnotations() == null ? null
        : pool.getMetadata().getAnnotations().get(PoolKeys.ROTATE_ANNOTATION);
    Map<String, String> next = PoolKeys.next(current, served, requested, PoolKeys::randomKey);
    String rotation = requested != null && !requested.isBlank() && !next.equals(current) ? requested : served;
    return new SecretBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.keysSecret(pool),
            rotation == null ? Map.of() : Map.of(PoolKeys.ROTATED_FOR_ANNOTATION, rotation)))
        .withType("Opaque")
        .withData(PoolKeys.encode(next))
        .build();
  }

  static Optional<Secret> secret(Context<KvCachePool> context, String name) {
    return context.getSecondaryResourcesAsStream(Secret.class)
        .filter(s -> name.equals(s.getMetadata().getName()))
        .findFirst();
  }
}
