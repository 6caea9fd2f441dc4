package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.render.DisruptionBudgets;

/**
 * The disruption budget of one data-plane component ({@link DisruptionBudgets}). A workflow entry
 * names a class, not an instance, hence one small subclass per component.
 */
public abstract class DisruptionBudgetDependent
    extends CRUDKubernetesDependentResource<PodDisruptionBudget, KvCachePool> {
  private final Component component;

  protected DisruptionBudgetDependent(Component component) {
    super(PodDisruptionBudget.class);
    this.component = component;
  }

  @Override
  protected PodDisruptionBudget desired(KvCachePool pool, Context<KvCachePool> context) {
    return DisruptionBudgets.of(pool, component);
  }
}
