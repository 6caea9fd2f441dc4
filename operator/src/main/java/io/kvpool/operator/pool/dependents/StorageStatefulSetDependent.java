package io.kvpool.operator.pool.dependents;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDKubernetesDependentResource;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.pool.DataPlanePorts;
import io.kvpool.operator.pool.DataPlaneSettings;
import io.kvpool.operator.pool.DataPlaneStatefulSet;
import io.kvpool.operator.pool.PoolRollout;
import io.kvpool.operator.pool.PoolTransport;
import io.kvpool.operator.pool.StorageResources;
import io.kvpool.operator.pool.TransportAttachments;
import io.kvpool.operator.rollout.MemoryFileVolume;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.List;

/**
 * {@code <pool>-storage}: the storage nodes that own the memory segments. The replica count is the
 * only field driven by spec.storage.replicas, so scaling never changes the pod template (no restart); a scale-down
 * lowers it one drained pod at a time ({@link PoolRollout}). With warm restarts the segments are memory files in a
 * hostPath folder of the node ({@link MemoryFileVolume}).
 * Transport settings are in the pod env, so a TransferEngine change rolls the storage nodes only.
 * It reads StatefulSets through the master StatefulSet dependent's informer (one informer per kind).
 */
public class StorageStatefulSetDependent extends CRUDKubernetesDependentResource<StatefulSet, KvCachePool> {
  public static final String MAIN_CLASS = "io.kvpool.storage.StorageNodeMain";
  public static final String HUGEPAGES_VOLUME = ApiLimits.HUGEPAGES_VOLUME;

  public StorageStatefulSetDependent() {
    super(StatefulSet.class);
  }

  @Override
  protected StatefulSet desired(KvCachePool pool, Context<KvCachePool> context) {
    return desired(pool, PoolTransport.of(pool, context), PoolRollout.of(pool, context));
  }

  public static StatefulSet desired(KvCachePool pool, TransportSettings transport) {
    return desired(pool, transport, PoolRollout.ofSpec(pool));
  }

  /** At the release and replica count the rollout renders. */
  public static StatefulSet desired(KvCachePool pool, TransportSettings transport, PoolRollout rollout) {
    DataPlaneStatefulSet storage = DataPlaneStatefulSet.storage(pool, rollout);
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
    MemoryFileVolume.of(pool).ifPresent(warm -> podSpec.addToVolumes(MemoryFileVolume.volume(warm)));
    return storage.build(podSpec.build());
  }

  private static Container container(KvCachePool pool, DataPlaneStatefulSet storage, TransportSettings transport,
      boolean hugePages) {
    DataPlaneSettings settings = storage.settings();
    // No capability is added: the data plane does not mlock its segments, and explicit huge pages come from a
    // hugetlbfs emptyDir sized by the hugepages-2Mi resource, which needs no IPC_LOCK.
    var container = storage.container(MAIN_CLASS, StorageResources.of(settings, transport))
        .addAllToEnv(TransportAttachments.env(transport))
        .addToPorts(DataPlanePorts.containerPort(DataPlanePorts.TRANSFER, transport.port()));
    if (hugePages) {
      container.addToVolumeMounts(new VolumeMountBuilder().withName(HUGEPAGES_VOLUME)
          .withMountPath(ApiLimits.HUGEPAGES_DIR).build());
    }
    if (MemoryFileVolume.of(pool).isPresent()) {
      // warm restarts: segments in memory files of a node folder that outlives the pod
      container.addToVolumeMounts(MemoryFileVolume.mount()).addToEnv(MemoryFileVolume.env(pool));
    }
    return container.addAllToVolumeMounts(TransportAttachments.driverMounts(transport)).build();
  }
}
