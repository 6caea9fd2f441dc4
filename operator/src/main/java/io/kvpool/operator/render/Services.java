package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.common.PoolObjectMeta;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.Map;

/** The pool's three Services: the masters' peers, the leader, the storage nodes. */
public final class Services {
  private Services() {}

  /**
   * {@code <pool>-master-peers}: headless governing Service of the master StatefulSet; gives every
   * master a stable DNS name, published before it is ready so standbys can reach a recovering
   * leader.
   */
  public static Service masterPeers(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new ServiceBuilder()
        .withMetadata(
            PoolObjectMeta.of(
                pool, PoolNames.masterPeers(pool), Component.MASTER, settings.version()))
        .withNewSpec()
        .withClusterIP("None")
        .withPublishNotReadyAddresses(true)
        .withSelector(PoolLabels.selector(pool, Component.MASTER))
        .withPorts(DataPlanePorts.servicePorts(settings.masterPort(), settings.masterAdminPort()))
        .endSpec()
        .build();
  }

  /**
   * {@code <pool>-master}: the address clients and storage nodes use. It selects only the pod the
   * elected master labelled {@code kvpool.io/role=leader}, so a failover moves the address with the
   * lease. With KV events on, it also carries the events' PUB and replay ports: only the leader
   * publishes.
   */
  public static Service masterLeader(KvCachePool pool) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    Map<String, String> selector = PoolLabels.selector(pool, Component.MASTER);
    selector.put(PoolLabels.ROLE, PoolLabels.ROLE_LEADER);
    return new ServiceBuilder()
        .withMetadata(
            PoolObjectMeta.of(pool, PoolNames.master(pool), Component.MASTER, settings.version()))
        .withNewSpec()
        .withType("ClusterIP")
        .withSelector(selector)
        .withPorts(DataPlanePorts.servicePorts(settings.masterPort(), settings.masterAdminPort()))
        .addAllToPorts(PoolKvEvents.of(pool).servicePorts())
        .endSpec()
        .build();
  }

  /**
   * {@code <pool>-storage}: headless governing Service of the storage StatefulSet. Clients reach
   * storage nodes directly by the per-pod DNS names the master hands out in replica lists.
   */
  public static Service storage(KvCachePool pool, TransportSettings transport) {
    DataPlaneSettings settings = DataPlaneSettings.of(pool);
    return new ServiceBuilder()
        .withMetadata(
            PoolObjectMeta.of(pool, PoolNames.storage(pool), Component.STORAGE, settings.version()))
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
