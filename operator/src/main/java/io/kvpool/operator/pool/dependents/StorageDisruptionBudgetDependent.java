package io.kvpool.operator.pool.dependents;

import io.kvpool.operator.common.PoolLabels.Component;

/**
 * {@code <pool>-storage}: an object with two or more replicas keeps one while the master repairs
 * the other. Reads budgets through the master budget dependent's informer.
 */
public class StorageDisruptionBudgetDependent extends DisruptionBudgetDependent {

  public StorageDisruptionBudgetDependent() {
    super(Component.STORAGE);
  }
}
