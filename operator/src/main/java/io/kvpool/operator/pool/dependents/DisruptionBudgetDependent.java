package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.PoolNames;

/**
 * The disruption budget of one data-plane component: at most one of its pods voluntarily evicted at a time.
 * maxUnavailable (not minAvailable) keeps the budget independent of the replica count, so scaling never
 * rewrites it. A workflow entry names a class, not an instance, hence one small subclass per component.
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
    return desired(pool, component);
  }

  static PodDisruptionBudget desired(KvCachePool pool, Component component) {
    return new PodDisruptionBudgetBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.of(pool, component)))
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector().withMatchLabels(PoolLabels.selector(pool, component)).endSelector()
        .endSpec()
        .build();
  }
}
