package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.DataPlaneStatefulSet;
import io.kvpool.operator.pool.PoolNames;
import java.util.List;

/**
 * {@code <pool>-master}: 1 or 3 masters that elect a leader through the pool's Lease. Parallel pod
 * management: standbys need not wait for the leader to be ready (it only reports ready once it leads).
 * Its informer watches every StatefulSet of the operator; the storage StatefulSet dependent shares it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterStatefulSetDependent extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {
  public static final String MAIN_CLASS = "io.kvpool.master.MasterMain";
  public static final String MASTER_MAX_HEAP = "512m";

  public MasterStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static StatefulSet desired(KvCachePool pool) {
    DataPlaneStatefulSet masters = DataPlaneStatefulSet.master(pool);
    DataPlaneSettings settings = masters.settings();
    Container container = masters.container(MAIN_CLASS, MASTER_MAX_HEAP, List.of(
            "--pool-id", settings.poolId(),
            "--host", "0.0.0.0",
            "--port", Integer.toString(settings.masterPort()),
            "--admin-port", Integer.toString(settings.masterAdminPort()),
            "--node-ttl", settings.nodeTtl(),
            "--lease-ttl", settings.leaseTtl(),
            "--high-watermark", Double.toString(settings.highWatermark()),
            "--evict-ratio", Double.toString(settings.evictRatio())))
        .withResources(settings.masterResources() == null ? new ResourceRequirements() : settings.masterResources())
        .build();
    return masters.build(masters.podSpec(container)
        // The masters' own identity: they elect through the pool's Lease and label their pod as leader.
        .withServiceAccountName(PoolNames.master(pool))
        .build());
  }
}
