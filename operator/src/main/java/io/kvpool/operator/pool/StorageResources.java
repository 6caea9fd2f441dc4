package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Resources of a storage container, derived so that the segments always fit:
 * memory limit = memoryPerNode + {@link #JVM_HEADROOM_BYTES} (JVM heap, metaspace, thread stacks and
 * socket buffers), never below what the user asked for; requests = limits for memory, so the pod is
 * not the first victim under node pressure. With hugePages=explicit the segments come from
 * hugepages-2Mi (memoryPerNode rounded up to 2Mi) and the memory limit still covers them, because the
 * native library falls back to normal pages when a huge-page mapping fails.
 * Devices of an ascend TransferEngine are requested as {@code resourceName: count} (requests = limits,
 * as Kubernetes requires for extended resources).
 */
public final class StorageResources {
  /** 256Mi heap (-Xmx of the storage main) + 256Mi metaspace, stacks, direct buffers and malloc arenas. */
  public static final long JVM_HEADROOM_BYTES = 512L << 20;
  public static final String STORAGE_MAX_HEAP = "256m";
  public static final String HUGEPAGES_2MI = "hugepages-2Mi";
  private static final long HUGE_PAGE_BYTES = 2L << 20;

  private StorageResources() {
  }

  public static ResourceRequirements of(DataPlaneSettings settings, TransportSettings transport) {
    Map<String, Quantity> requests = new LinkedHashMap<>();
    Map<String, Quantity> limits = new LinkedHashMap<>();
    ResourceRequirements user = settings.storageResources();
    if (user != null) {
      if (user.getRequests() != null) {
        requests.putAll(user.getRequests());
      }
      if (user.getLimits() != null) {
        limits.putAll(user.getLimits());
      }
    }
    long memory = memoryLimitBytes(settings);
    Quantity memoryQuantity = ByteQuantity.exact(memory);
    limits.put("memory", memoryQuantity);
    requests.put("memory", memoryQuantity);
    if (settings.hugePages() == HugePages.EXPLICIT) {
      Quantity hugePages = ByteQuantity.exact(roundUpToHugePage(settings.memoryPerNodeBytes()));
      requests.put(HUGEPAGES_2MI, hugePages);
      limits.put(HUGEPAGES_2MI, hugePages);
    }
    transport.devices().ifPresent(devices -> {
      Quantity count = new Quantity(Integer.toString(devices.count()));
      requests.put(devices.resourceName(), count);
      limits.put(devices.resourceName(), count);
    });
    return new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build();
  }

  /** memoryPerNode + headroom, or the user's larger limit; never below the segments. */
  public static long memoryLimitBytes(DataPlaneSettings settings) {
    long derived = settings.memoryPerNodeBytes() + JVM_HEADROOM_BYTES;
    ResourceRequirements user = settings.storageResources();
    if (user != null && user.getLimits() != null && user.getLimits().get("memory") != null) {
      return Math.max(derived, ByteQuantity.bytes(user.getLimits().get("memory")));
    }
    return derived;
  }

  static long roundUpToHugePage(long bytes) {
    return (bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
  }
}
