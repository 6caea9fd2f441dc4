package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;

/**
 * The disruption budget of each data-plane component: at most one of its pods voluntarily evicted
 * at a time. maxUnavailable (not minAvailable) keeps the budget independent of the replica count,
 * so scaling never rewrites it.
 */
public final class DisruptionBudgets {
  private DisruptionBudgets() {}

  /**
   * {@code <pool>-master}: with three masters a node drain never takes the leader and a standby
   * together; a single master stays evictable so drains do not hang forever.
   */
  public static PodDisruptionBudget master(KvCachePool pool) {
    return of(pool, Component.MASTER);
  }

  /**
   * {@code <pool>-storage}: an object with two or more replicas keeps one while the master repairs
   * the other.
   */
  public static PodDisruptionBudget storage(KvCachePool pool) {
    return of(pool, Component.STORAGE);
  }

  public static PodDisruptionBudget of(KvCachePool pool, Component component) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.of(pool, component)))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector()
        .withMatchLabels(PoolLabels.selector(pool, component))
        .endSelector()
        .endSpec()
        .build();
  }
}
