package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.pool.DataPlaneStatefulSet;
import io.kvpool.operator.pool.MasterResources;
import io.kvpool.operator.pool.PoolNames;
import io.kvpool.operator.pool.PoolRollout;

/**
 * {@code <pool>-master}: 1 or 3 masters that elect a leader through the pool's Lease. Parallel pod
 * management: standbys need not wait for the leader to be ready (it only reports ready once it leads). The release
 * is the one the rollout renders ({@link PoolRollout}); the rollout replaces the pods.
 * Its informer watches every StatefulSet of the operator; the storage StatefulSet dependent shares it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterStatefulSetDependent extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {
  public static final String MAIN_CLASS = "io.kvpool.master.MasterMain";

  public MasterStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool, PoolRollout.of(pool, context));
  }

  public static StatefulSet desired(KvCachePool pool) {
    return desired(pool, PoolRollout.ofSpec(pool));
  }

  /** At the release the rollout renders. */
  public static StatefulSet desired(KvCachePool pool, PoolRollout rollout) {
    DataPlaneStatefulSet masters = DataPlaneStatefulSet.master(pool, rollout);
    Container container = masters.container(MAIN_CLASS, MasterResources.of(masters.settings())).build();
    return masters.build(masters.podSpec(container)
        // The masters' own identity: they elect through the pool's Lease and label their pod as leader.
        .withServiceAccountName(PoolNames.master(pool))
        .build());
  }
}
