package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.pool.DataPlanePorts;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.DataPlaneStatefulSet;
import io.kvpool.operator.pool.PoolNames;
import io.kvpool.operator.pool.PoolTransport;
import io.kvpool.operator.pool.StorageResources;
import io.kvpool.operator.pool.TransportAttachments;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.List;

/**
 * {@code <pool>-storage}: the storage nodes that own the memory segments. The replica count is the
 * only field driven by spec.storage.replicas, so scaling never changes the pod template (no restart).
 * Transport settings are in the pod env, so a TransferEngine change rolls the storage nodes only.
 * It reads StatefulSets through the master StatefulSet dependent's informer (one informer per kind).
 */
public class StorageStatefulSetDependent extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {
  public static final String MAIN_CLASS = "io.kvpool.storage.StorageNodeMain";
  public static final String HUGEPAGES_VOLUME = "hugepages";

  public StorageStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool, PoolTransport.of(pool, context));
  }

  public static StatefulSet desired(KvCachePool pool, TransportSettings transport) {
    DataPlaneStatefulSet storage = DataPlaneStatefulSet.storage(pool);
    boolean hugePages = storage.settings().hugePages() == HugePages.EXPLICIT;
    PodSpecBuilder podSpec = storage.podSpec(container(pool, storage, transport, hugePages))
        // Storage nodes never call the Kubernetes API: no token in the pod.
        .withAutomountServiceAccountToken(false)
        .withHostNetwork(transport.hostNetwork() ? Boolean.TRUE : null)
        .withDnsPolicy(transport.hostNetwork() ? "ClusterFirstWithHostNet" : null);
    if (hugePages) {
      podSpec.addToVolumes(new VolumeBuilder().withName(HUGEPAGES_VOLUME)
          .withNewEmptyDir().withMedium("HugePages-2Mi").endEmptyDir().build());
    }
    podSpec.addAllToVolumes(TransportAttachments.driverVolumes(transport));
    return storage.build(podSpec.build());
  }

  private static Container container(KvCachePool pool, DataPlaneStatefulSet storage, TransportSettings transport,
      boolean hugePages) {
    DataPlaneSettings settings = storage.settings();
    // --pool-id makes the node refuse a master of another pool instead of joining whatever the address reaches.
    var container = storage.container(MAIN_CLASS, StorageResources.STORAGE_MAX_HEAP, List.of(
            "--pool-id", settings.poolId(),
            "--master", PoolNames.masterAddress(pool, settings.masterPort()),
            "--node-id", "$(POD_NAME)",
            "--host", "0.0.0.0",
            "--port", Integer.toString(settings.storagePort()),
            "--admin-port", Integer.toString(settings.storageAdminPort()),
            "--memory", Long.toString(settings.memoryPerNodeBytes()),
            "--segments", Integer.toString(settings.segments()),
            "--huge-pages", settings.hugePagesFlag()))
        .addAllToEnv(TransportAttachments.env(transport))
        .addToPorts(DataPlanePorts.containerPort(DataPlanePorts.TRANSFER, transport.port()))
        .withResources(StorageResources.of(settings, transport))
        // mlock of the segments needs IPC_LOCK; nothing else is added.
        .withNewSecurityContext().withNewCapabilities().withAdd("IPC_LOCK").endCapabilities().endSecurityContext();
    if (hugePages) {
      container.addToVolumeMounts(new VolumeMountBuilder().withName(HUGEPAGES_VOLUME).withMountPath("/dev/hugepages")
          .build());
    }
    return container.addAllToVolumeMounts(TransportAttachments.driverMounts(transport)).build();
  }
}
