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
import io.kvpool.operator.pool.PoolTransport;
import io.kvpool.operator.transferengine.TransportSettings;

/**
 * {@code <pool>-storage}: headless governing Service of the storage StatefulSet. Clients reach storage
 * nodes directly by the per-pod DNS names the master hands out in replica lists.
 * Reads Services through the peer Service dependent's informer.
 */
public class StorageServiceDependent extends CRUDKubernetesDependentResource<Service, KvCachePool> {

  public StorageServiceDependent() {
    super(Service.class);
  }

  @Override
  protected Service desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool, PoolTransport.of(pool, context));
  }

  public static Service desired(KvCachePool pool, TransportSettings transport) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new ServiceBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.storage(pool), Component.STORAGE, settings.version()))
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(PoolLabels.selector(pool, Component.STORAGE))
        .withPorts(DataPlanePorts.servicePorts(settings.storagePort(), settings.storageAdminPort()))
        .addToPorts(DataPlanePorts.servicePort(DataPlanePorts.TRANSFER, transport.port()))
        .endSpec()
        .build();
  }
}
