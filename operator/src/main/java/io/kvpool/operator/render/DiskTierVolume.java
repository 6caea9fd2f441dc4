package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.ByteQuantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A storage pod's disk tier ({@code spec.storage.disk}): the volume {@value #NAME} mounted at
 * {@value #MOUNT_PATH}, and the storage node's settings {@code KVPOOL_DISK_SIZE}, {@code
 * KVPOOL_DISK_DIR} and {@code KVPOOL_DISK_FILE_SIZE} in its environment. The node keeps its files
 * in {@code <KVPOOL_DISK_DIR>/<pod name>}. The volume is one of:
 *
 * <ul>
 *   <li>an emptyDir with a sizeLimit of {@code emptyDir.sizeLimit}, else of the tier's size (the
 *       default): the tier goes with the pod;
 *   <li>a hostPath folder of the node, in which each pool has {@code <namespace>/<pool>}: the tier
 *       stays on the node for the pod that replaces this one there;
 *   <li>a PersistentVolumeClaim per pod from the StatefulSet's volume claim template: the tier
 *       follows the pod's identity (StatefulSets keep claims when pods are replaced or scaled
 *       away).
 * </ul>
 */
public record DiskTierVolume(DiskTierSpec spec, long sizeBytes, Optional<Long> fileBytes) {
  public static final String NAME = ApiLimits.DISK_VOLUME;
  public static final String MOUNT_PATH = ApiLimits.DISK_DIR;

  /**
   * The tier of {@code pool}, when it has one.
   *
   * @throws io.kvpool.operator.common.InvalidSpecException when a size is not a byte count
   */
  public static Optional<DiskTierVolume> of(KvCachePool pool) {
    var storage = pool.getSpec() == null ? null : pool.getSpec().getStorage();
    DiskTierSpec disk = storage == null ? null : storage.getDisk();
    if (disk == null) {
      return Optional.empty();
    }
    long size = ByteQuantity.bytes("spec.storage.disk.size", disk.getSize());
    Optional<Long> file =
        Optional.ofNullable(disk.getFileSize())
            .map(q -> ByteQuantity.bytes("spec.storage.disk.fileSize", q));
    return Optional.of(new DiskTierVolume(disk, size, file));
  }

  /** The pod volume; empty for a claim, which the StatefulSet's claim template provides. */
  public Optional<Volume> volume() {
    if (spec.getVolumeClaim() != null) {
      return Optional.empty();
    }
    VolumeBuilder volume = new VolumeBuilder().withName(NAME);
    if (spec.getHostPath() != null) {
      return Optional.of(
          volume
              .withNewHostPath()
              .withPath(spec.getHostPath().getPath())
              .withType("DirectoryOrCreate")
              .endHostPath()
              .build());
    }
    Quantity limit =
        spec.getEmptyDir() != null && spec.getEmptyDir().getSizeLimit() != null
            ? spec.getEmptyDir().getSizeLimit()
            : ByteQuantity.exact(sizeBytes);
    return Optional.of(volume.withNewEmptyDir().withSizeLimit(limit).endEmptyDir().build());
  }

  /** The StatefulSet's claim template, for a tier on claims. */
  public List<PersistentVolumeClaim> claimTemplates() {
    if (spec.getVolumeClaim() == null) {
      return List.of();
    }
    Quantity request =
        spec.getVolumeClaim().getSize() != null
            ? spec.getVolumeClaim().getSize()
            : ByteQuantity.exact(sizeBytes);
    return List.of(
        new PersistentVolumeClaimBuilder()
            .withNewMetadata()
            .withName(NAME)
            .endMetadata()
            .withNewSpec()
            .withAccessModes("ReadWriteOnce")
            .withVolumeMode("Filesystem")
            .withStorageClassName(spec.getVolumeClaim().getStorageClassName())
            .withNewResources()
            .withRequests(Map.of("storage", request))
            .endResources()
            .endSpec()
            .build());
  }

  public VolumeMount mount() {
    return new VolumeMountBuilder().withName(NAME).withMountPath(MOUNT_PATH).build();
  }

  /**
   * The storage node's settings. In a node folder shared by pools, each pool's tiers sit under
   * {@code <namespace>/<pool>}.
   */
  public List<EnvVar> env(KvCachePool pool) {
    String dir =
        spec.getHostPath() == null
            ? MOUNT_PATH
            : MOUNT_PATH
                + "/"
                + pool.getMetadata().getNamespace()
                + "/"
                + pool.getMetadata().getName();
    List<EnvVar> env = new ArrayList<>();
    env.add(new EnvVar("KVPOOL_DISK_SIZE", Long.toString(sizeBytes), null));
    env.add(new EnvVar("KVPOOL_DISK_DIR", dir, null));
    fileBytes.ifPresent(
        bytes -> env.add(new EnvVar("KVPOOL_DISK_FILE_SIZE", Long.toString(bytes), null)));
    return env;
  }
}
