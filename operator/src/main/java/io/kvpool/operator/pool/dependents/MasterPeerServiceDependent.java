package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.pool.DataPlanePorts;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.PoolNames;

/**
 * {@code <pool>-master-peers}: headless governing Service of the master StatefulSet; gives every master
 * a stable DNS name, published before it is ready so standbys can reach a recovering leader.
 * Its informer watches every Service of the operator; the leader and storage Service dependents share it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = PoolLabels.MANAGED_SELECTOR))
public class MasterPeerServiceDependent extends CRUDKubernetesDependentResource<Service, KvCachePool> {

  public MasterPeerServiceDependent() {
    super(Service.class);
  }

  @Override
  protected Service desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool);
  }

  public static Service desired(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new ServiceBuilder()
        .withMetadata(PoolObjectMeta.of(pool, PoolNames.masterPeers(pool), Component.MASTER, settings.version()))
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(PoolLabels.selector(pool, Component.MASTER))
        .withPorts(DataPlanePorts.servicePorts(settings.masterPort(), settings.masterAdminPort()))
        .endSpec()
        .build();
  }
}
