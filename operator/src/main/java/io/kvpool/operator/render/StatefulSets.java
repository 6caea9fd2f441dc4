package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.Optional;

/**
 * The pool's two StatefulSets, each at the release (and, for the storage nodes, the replica count)
 * a rollout renders ({@link PoolRollout}); the rollout replaces the pods. What both share is
 * assembled by {@link DataPlaneStatefulSet}.
 *
 * <ul>
 *   <li>{@code <pool>-master}: 1 or 3 masters that elect a leader through the pool's Lease.
 *       Parallel pod management: standbys need not wait for the leader to be ready (it only reports
 *       ready once it leads).
 *   <li>{@code <pool>-storage}: the storage nodes that own the memory segments. The replica count
 *       is the only field driven by spec.storage.replicas, so scaling never changes the pod
 *       template (no restart); a scale-down lowers it one drained pod at a time. With warm restarts
 *       the segments are memory files in a hostPath folder of the node ({@link MemoryFileVolume}).
 *       Transport settings are in the pod env, so a TransferEngine change rolls the storage nodes
 *       only.
 * </ul>
 */
public final class StatefulSets {
  public static final String MASTER_MAIN = "io.kvpool.master.MasterMain";
  public static final String STORAGE_MAIN = "io.kvpool.storage.StorageNodeMain";
  public static final String HUGEPAGES_VOLUME = ApiLimits.HUGEPAGES_VOLUME;

  private StatefulSets() {}

  /** The masters at the release of the spec. */
  public static StatefulSet master(KvCachePool pool) {
    return master(pool, PoolRollout.ofSpec(pool));
  }

  /** The masters at the release the rollout renders. */
  public static StatefulSet master(KvCachePool pool, PoolRollout rollout) {
    DataPlaneStatefulSet masters = DataPlaneStatefulSet.master(pool, rollout);
    Container container =
        masters
            .container(MASTER_MAIN, MasterResources.of(masters.settings()))
            .addAllToPorts(PoolKvEvents.of(pool).containerPorts())
            .build();
    return masters.build(
        masters
            .podSpec(container)
            // The masters' own identity: they elect through the pool's Lease and label their pod as
            // leader.
            .withServiceAccountName(PoolNames.master(pool))
            .build());
  }

  /** The storage nodes at the release and replica count of the spec. */
  public static StatefulSet storage(KvCachePool pool, TransportSettings transport) {
    return storage(pool, transport, PoolRollout.ofSpec(pool));
  }

  /** The storage nodes at the release and replica count the rollout renders. */
  public static StatefulSet storage(
      KvCachePool pool, TransportSettings transport, PoolRollout rollout) {
    DataPlaneStatefulSet storage = DataPlaneStatefulSet.storage(pool, rollout);
    boolean hugePages = storage.settings().hugePages() == HugePages.EXPLICIT;
    PodSpecBuilder podSpec =
        storage
            .podSpec(storageContainer(pool, storage, transport, hugePages))
            // Storage nodes never call the Kubernetes API: no token in the pod.
            .withAutomountServiceAccountToken(false)
            .withHostNetwork(transport.hostNetwork() ? Boolean.TRUE : null)
            .withDnsPolicy(transport.hostNetwork() ? "ClusterFirstWithHostNet" : null);
    if (hugePages) {
      podSpec.addToVolumes(
          new VolumeBuilder()
              .withName(HUGEPAGES_VOLUME)
              .withNewEmptyDir()
              .withMedium("HugePages-2Mi")
              .endEmptyDir()
              .build());
    }
    podSpec.addAllToVolumes(TransportAttachments.driverVolumes(transport));
    MemoryFileVolume.of(pool)
        .ifPresent(warm -> podSpec.addToVolumes(MemoryFileVolume.volume(warm)));
    Optional<DiskTierVolume> disk = DiskTierVolume.of(pool);
    disk.flatMap(DiskTierVolume::volume).ifPresent(podSpec::addToVolumes);
    StatefulSet sts = storage.build(podSpec.build());
    disk.map(DiskTierVolume::claimTemplates)
        .filter(claims -> !claims.isEmpty())
        .ifPresent(claims -> sts.getSpec().setVolumeClaimTemplates(claims));
    return sts;
  }

  private static Container storageContainer(
      KvCachePool pool,
      DataPlaneStatefulSet storage,
      TransportSettings transport,
      boolean hugePages) {
    DataPlaneSettings settings = storage.settings();
    // No capability is added: the data plane does not mlock its segments, and explicit huge pages
    // come from a
    // hugetlbfs emptyDir sized by the hugepages-2Mi resource, which needs no IPC_LOCK.
    var container =
        storage
            .container(STORAGE_MAIN, StorageResources.of(settings, transport))
            .addAllToEnv(TransportAttachments.env(transport))
            .addToPorts(DataPlanePorts.containerPort(DataPlanePorts.TRANSFER, transport.port()));
    if (hugePages) {
      container.addToVolumeMounts(
          new VolumeMountBuilder()
              .withName(HUGEPAGES_VOLUME)
              .withMountPath(ApiLimits.HUGEPAGES_DIR)
              .build());
    }
    if (MemoryFileVolume.of(pool).isPresent()) {
      // warm restarts: segments in memory files of a node folder that outlives the pod
      container.addToVolumeMounts(MemoryFileVolume.mount()).addToEnv(MemoryFileVolume.env(pool));
    }
    DiskTierVolume.of(pool)
        .ifPresent(
            // the disk tier: its volume, its size and folder for the storage node
            disk -> container.addToVolumeMounts(disk.mount()).addAllToEnv(disk.env(pool)));
    return container.addAllToVolumeMounts(TransportAttachments.driverMounts(transport)).build();
  }
}
