package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolObjectMeta;
import java.util.Map;
import java.util.Optional;

/**
 * The pool's two Secrets: its keys, and the client key alone. Their content is {@link PoolKeys}.
 */
public final class Secrets {
  private Secrets() {}

  /**
   * {@code <pool>-keys}: the pool's cluster key, client key and admin token, mounted into master
   * and storage pods (never into a ConfigMap, a status, an Event or a log line), given the Secret
   * that exists now, if any. Made once with random values and kept; rotated when the pool's {@value
   * PoolKeys#ROTATE_ANNOTATION} annotation asks for it.
   */
  public static Secret keys(KvCachePool pool, Optional<Secret> existing) {
    Map<String, String> current = PoolKeys.decode(existing.map(Secret::getData).orElse(null));
    String served =
        existing
            .map(s -> s.getMetadata().getAnnotations())
            .map(a -> a.get(PoolKeys.ROTATED_FOR_ANNOTATION))
            .orElse(null);
    String requested =
        pool.getMetadata().getAnnotations() == null
            ? null
            : pool.getMetadata().getAnnotations().get(PoolKeys.ROTATE_ANNOTATION);
    Map<String, String> next = PoolKeys.next(current, served, requested, PoolKeys::randomKey);
    String rotation =
        requested != null && !requested.isBlank() && !next.equals(current) ? requested : served;
    return new SecretBuilder()
        .withMetadata(
            PoolObjectMeta.of(
                pool,
                PoolNames.keysSecret(pool),
                rotation == null ? Map.of() : Map.of(PoolKeys.ROTATED_FOR_ANNOTATION, rotation)))
        .withType("Opaque")
        .withData(PoolKeys.encode(next))
        .build();
  }

  /**
   * {@code <pool>-client-key}: only the client key of {@code keys}, for inference pods ({@code
   * KVPOOL_CLIENT_KEY} from a secretKeyRef; the client ConfigMap names this Secret).
   */
  public static Secret clientKey(KvCachePool pool, Secret keys) {
    return new SecretBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.clientKeySecret(pool)))
        .withType("Opaque")
        .withData(Map.of(PoolKeys.CLIENT_KEY, keys.getData().get(PoolKeys.CLIENT_KEY)))
        .build();
  }
}
