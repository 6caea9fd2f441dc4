package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels.Component;

/**
 * {@code <pool>-storage}: an object with two or more replicas keeps one while the master repairs the other.
 * Reads budgets through the master budget dependent's informer.
 */
public class StorageDisruptionBudgetDependent extends DisruptionBudgetDependent {

  public StorageDisruptionBudgetDependent() {
    super(Component.STORAGE);
  }

  public static PodDisruptionBudget desired(KvCachePool pool) {
    return desired(pool, Component.STORAGE);
  }
}
