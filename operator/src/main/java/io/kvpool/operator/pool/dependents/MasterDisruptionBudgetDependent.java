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
 * At most one master voluntarily evicted at a time: with three masters a node drain never takes the
 * leader and a standby together. A single master stays evictable so drains do not hang forever.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterDisruptionBudgetDependent
    extends CRUDKubernetesDependentResource<PodDisruptionBudget, KvCachePool> {

  public MasterDisruptionBudgetDependent() {
    super(PodDisruptionBudget.class);
  }

  @Override
  protected PodDisruptionBudget desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static PodDisruptionBudget desired(KvCachePool pool) {
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(PoolNames.master(pool))
        .withNamespace(pool.getMetadata().getNamespace())
        .withOwnerReferences(Ownership.controlledBy(pool))
        .withLabels(PoolLabels.common(pool))
        .endMetadata()
        .withNewSpec()
        .withMaxUnavailable(new IntOrString(1))
        .withNewSelector().withMatchLabels(PoolLabels.selector(pool, Component.MASTER)).endSelector()
        .endSpec()
        .build();
  }
}
