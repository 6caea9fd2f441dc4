package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.DataPlanePorts;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.PoolNames;
import java.util.Map;

/**
 * {@code <pool>-master}: the address clients and storage nodes use. It selects only the pod the
 * elected master labelled {@code kvpool.io/role=leader}, so a failover moves the address with the lease.
 * Reads Services through the peer Service dependent's informer.
 */
public class MasterLeaderServiceDependent extends CRUDKubernetesDependentResource<Service, KvCachePool> {

  public MasterLeaderServiceDependent() {
    super(Service.class);
  }

  @Override
  protected Service desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static Service desired(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    Map<String, String> selector = PoolLabels.selector(pool, Component.MASTER);
    selector.put(PoolLabels.ROLE, PoolLabels.ROLE_LEADER);
    return new ServiceBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.master(pool), Component.MASTER, settings.version()))
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(selector)
        .withPorts(DataPlanePorts.servicePorts(settings.masterPort(), settings.masterAdminPort()))
        .endSpec()
        .build();
  }
}
