package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.EvictionSpec;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.ImagePullPolicy;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.api.v1alpha1.MasterSpec;
import io.kvpool.api.v1alpha1.StorageSpec;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.InvalidSpecException;
import java.util.Locale;

/**
 * The data-plane settings of a pool, read from its spec. The API server fills the CRD defaults; the
 * fallbacks here are the same constants the CRD's defaults are generated from, so that objects
 * built outside an API server (unit tests, a pool written before a default was added) still get the
 * documented values. Nothing is written back. Reading never fails with anything but an {@link
 * InvalidSpecException} naming the field.
 */
public record DataPlaneSettings(
    String poolId,
    String version,
    String image,
    String imagePullPolicy,
    int masterReplicas,
    int masterPort,
    int masterAdminPort,
    ComputeResources masterResources,
    int storageReplicas,
    long memoryPerNodeBytes,
    int segments,
    HugePages hugePages,
    int storagePort,
    int storageAdminPort,
    ComputeResources storageResources,
    int objectReplicas,
    String leaseTtl,
    String nodeTtl,
    double highWatermark,
    double evictRatio,
    boolean placementRamp) {

  public static final String DEFAULT_IMAGE_REPOSITORY = "kvpool/data-plane";

  /**
   * The settings of {@code pool}.
   *
   * @throws InvalidSpecException when a required field is missing or a quantity cannot be a byte
   *     count
   */
  public static DataPlaneSettings of(KvCachePool pool) {
    KvCachePoolSpec spec = pool.getSpec();
    if (spec == null) {
      throw new InvalidSpecException(
          "spec is missing; set at least spec.version and spec.storage.memoryPerNode");
    }
    if (spec.getVersion() == null) {
      throw new InvalidSpecException(
          "spec.version is missing; set the data-plane release, e.g. 1.2.0");
    }
    MasterSpec master = spec.getMaster() == null ? new MasterSpec() : spec.getMaster();
    StorageSpec storage = spec.getStorage();
    if (storage == null || storage.getMemoryPerNode() == null) {
      throw new InvalidSpecException(
          "spec.storage.memoryPerNode is missing; set the memory each storage node"
              + " offers, e.g. 4Gi");
    }
    EvictionSpec eviction = spec.getEviction() == null ? new EvictionSpec() : spec.getEviction();
    Quantity memory = storage.getMemoryPerNode();
    return new DataPlaneSettings(
        pool.getMetadata().getName(),
        spec.getVersion(),
        imageOf(spec),
        or(
                spec.getImagePullPolicy(),
                ImagePullPolicy.valueOf(KvCachePoolSpec.DEFAULT_IMAGE_PULL_POLICY))
            .name(),
        or(master.getReplicas(), MasterSpec.DEFAULT_REPLICAS),
        or(master.getPort(), MasterSpec.DEFAULT_PORT),
        or(master.getAdminPort(), MasterSpec.DEFAULT_ADMIN_PORT),
        master.getResources(),
        or(storage.getReplicas(), StorageSpec.DEFAULT_REPLICAS),
        ByteQuantity.bytes("spec.storage.memoryPerNode", memory),
        Math.max(1, or(storage.getSegments(), StorageSpec.DEFAULT_SEGMENTS)),
        or(
            storage.getHugePages(),
            HugePages.valueOf(StorageSpec.DEFAULT_HUGE_PAGES.toUpperCase(Locale.ROOT))),
        or(storage.getPort(), StorageSpec.DEFAULT_PORT),
        or(storage.getAdminPort(), StorageSpec.DEFAULT_ADMIN_PORT),
        storage.getResources(),
        or(spec.getObjectReplicas(), KvCachePoolSpec.DEFAULT_OBJECT_REPLICAS),
        or(spec.getLeaseTtl(), KvCachePoolSpec.DEFAULT_LEASE_TTL),
        or(spec.getNodeTtl(), KvCachePoolSpec.DEFAULT_NODE_TTL),
        or(eviction.getHighWatermark(), EvictionSpec.DEFAULT_HIGH_WATERMARK),
        or(eviction.getEvictRatio(), EvictionSpec.DEFAULT_EVICT_RATIO),
        or(master.getPlacementRamp(), MasterSpec.DEFAULT_PLACEMENT_RAMP));
  }

  /**
   * These settings with the release the rollout renders ({@link PoolRollout}) instead of
   * spec.version, and the storage replica count a scale-down has reached instead of
   * spec.storage.replicas.
   */
  public DataPlaneSettings rendered(PoolRollout rollout) {
    return new DataPlaneSettings(
        poolId,
        rollout.version(),
        rollout.image(),
        imagePullPolicy,
        masterReplicas,
        masterPort,
        masterAdminPort,
        masterResources,
        rollout.storageReplicas().orElse(storageReplicas),
        memoryPerNodeBytes,
        segments,
        hugePages,
        storagePort,
        storageAdminPort,
        storageResources,
        objectReplicas,
        leaseTtl,
        nodeTtl,
        highWatermark,
        evictRatio,
        placementRamp);
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
    return hugePages.name().toLowerCase(Locale.ROOT);
  }

  public long segmentBytes() {
    return memoryPerNodeBytes / segments;
  }

  private static <T> T or(T value, T fallback) {
    return value == null ? fallback : value;
  }
}
