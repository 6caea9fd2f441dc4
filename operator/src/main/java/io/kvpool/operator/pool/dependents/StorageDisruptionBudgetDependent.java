package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.Ownership;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.pool.PoolNames;

/**
 * At most one storage node voluntarily evicted at a time, so an object with two or more replicas keeps
 * one while the master repairs the other. maxUnavailable (not minAvailable) keeps the budget
 * independent of the replica count: scaling the pool never rewrites it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class StorageDisruptionBudgetDependent
    extends CRUDKubernetesDependentResource<PodDisruptionBudget, KvCachePool> {

  public StorageDisruptionBudgetDependent() {
    super(PodDisruptionBudget.class);
  }

  @Override
  protected PodDisruptionBudget desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static PodDisruptionBudget desired(KvCachePool pool) {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(PoolNames.storage(pool))
        .withNamespace(pool.getMetadata().getNamespace())
        .withOwnerReferences(Ownership.controlledBy(pool))
        .withLabels(PoolLabels.common(pool))
        .endMetadata()
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector().withMatchLabels(PoolLabels.selector(pool, Component.STORAGE)).endSelector()
        .endSpec()
        .build();
  }
}
