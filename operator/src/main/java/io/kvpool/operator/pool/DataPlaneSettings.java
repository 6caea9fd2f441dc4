package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.kvpool.api.v1alpha1.EvictionSpec;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.ImagePullPolicy;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.MasterSpec;
import io.kvpool.api.v1alpha1.StorageSpec;
import io.kvpool.operator.common.ByteQuantity;
import java.util.Objects;

/**
 * The data-plane settings of a pool, read from its spec. The API server fills the CRD defaults; the
 * fallbacks here only mirror them so that objects built outside an API server (unit tests, a pool
 * written before a default was added) still get the documented values. Nothing is written back.
 */
public record DataPlaneSettings(
    String poolId,
    String version,
    String image,
    String imagePullPolicy,
    int masterReplicas,
    int masterPort,
    int masterAdminPort,
    ResourceRequirements masterResources,
    int storageReplicas,
    long memoryPerNodeBytes,
    int segments,
    HugePages hugePages,
    int storagePort,
    int storageAdminPort,
    ResourceRequirements storageResources,
    int objectReplicas,
    String leaseTtl,
    String nodeTtl,
    double highWatermark,
    double evictRatio) {

  public static final String DEFAULT_IMAGE_REPOSITORY = "kvpool/data-plane";

  public static DataPlaneSettings of(KvCachePool pool) {
    KvCachePoolSpec spec = Objects.requireNonNull(pool.getSpec(), "KvCachePool " + pool.getMetadata().getName()
        + " has no spec");
    MasterSpec master = spec.getMaster() == null ? new MasterSpec() : spec.getMaster();
    StorageSpec storage = Objects.requireNonNull(spec.getStorage(), "KvCachePool "
        + pool.getMetadata().getName() + " has no spec.storage; it is required");
    EvictionSpec eviction = spec.getEviction() == null ? new EvictionSpec() : spec.getEviction();
    Quantity memory = Objects.requireNonNull(storage.getMemoryPerNode(), "KvCachePool "
        + pool.getMetadata().getName() + " has no spec.storage.memoryPerNode; it is required");
    return new DataPlaneSettings(
        pool.getMetadata().getName(),
        spec.getVersion(),
        imageOf(spec),
        or(spec.getImagePullPolicy(), ImagePullPolicy.IfNotPresent).name(),
        or(master.getReplicas(), 1),
        or(master.getPort(), 50051),
        or(master.getAdminPort(), 8080),
        master.getResources(),
        or(storage.getReplicas(), 3),
        ByteQuantity.bytes(memory),
        or(storage.getSegments(), 1),
        or(storage.getHugePages(), HugePages.TRANSPARENT),
        or(storage.getPort(), 50052),
        or(storage.getAdminPort(), 8081),
        storage.getResources(),
        or(spec.getObjectReplicas(), 2),
        or(spec.getLeaseTtl(), "5s"),
        or(spec.getNodeTtl(), "10s"),
        or(eviction.getHighWatermark(), 0.90),
        or(eviction.getEvictRatio(), 0.10));
  }

  /** The image pods run: spec.image, else the release image of spec.version. */
  public static String imageOf(KvCachePoolSpec spec) {
    if (spec.getImage() != null && !spec.getImage().isBlank()) {
      return spec.getImage();
    }
    return DEFAULT_IMAGE_REPOSITORY + ":" + spec.getVersion();
  }

  /** The flag value of the huge-pages mode, as the data-plane mains expect it. */
  public String hugePagesFlag() {
    return hugePages.name().toLowerCase(java.util.Locale.ROOT);
  }

  public long segmentBytes() {
    return memoryPerNodeBytes / segments;
  }

  private static <T> T or(T value, T fallback) {
    return value == null ? fallback : value;
  }
}
