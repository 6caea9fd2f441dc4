package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.WarmRestartSpec;
import java.util.Optional;

/**
 * The node folder that keeps a storage pod's segments as memory files across its replacement (warm
 * restarts): a hostPath volume of {@code spec.storage.warmRestart.hostPath}, mounted at {@value
 * #MOUNT_PATH}; the storage node keeps its files in {@code <mount>/<namespace>/<pool>/<pod>}
 * ({@code KVPOOL_MEMORY_DIR} names the pool's folder). A hostPath survives the pod on its node; an
 * emptyDir (even of medium Memory) does not.
 */
public final class MemoryFileVolume {
  public static final String NAME = "memory-files";
  public static final String MOUNT_PATH = "/var/lib/kvpool/memory";
  public static final String ENV = "KVPOOL_MEMORY_DIR";
  public static final String DEFAULT_HOST_PATH = WarmRestartSpec.DEFAULT_HOST_PATH;

  private MemoryFileVolume() {}

  /** The warm-restart settings when on. */
  public static Optional<WarmRestartSpec> of(KvCachePool pool) {
    var storage = pool.getSpec() == null ? null : pool.getSpec().getStorage();
    WarmRestartSpec warm = storage == null ? null : storage.getWarmRestart();
    return warm != null && Boolean.TRUE.equals(warm.getEnabled())
        ? Optional.of(warm)
        : Optional.empty();
  }

  public static Volume volume(WarmRestartSpec warm) {
    String path =
        warm.getHostPath() == null || warm.getHostPath().isBlank()
            ? DEFAULT_HOST_PATH
            : warm.getHostPath();
    return new VolumeBuilder()
        .withName(NAME)
        .withNewHostPath()
        .withPath(path)
        .withType("DirectoryOrCreate")
        .endHostPath()
        .build();
  }

  public static VolumeMount mount() {
    return new VolumeMountBuilder().withName(NAME).withMountPath(MOUNT_PATH).build();
  }

  /** {@code KVPOOL_MEMORY_DIR}: the pool's folder inside the mount; the node adds its own id. */
  public static EnvVar env(KvCachePool pool) {
    return new EnvVar(
        ENV,
        MOUNT_PATH + "/" + pool.getMetadata().getNamespace() + "/" + pool.getMetadata().getName(),
        null);
  }
}
