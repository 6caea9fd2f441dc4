package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Resources of a storage container, derived so that the segments always fit and are reserved once:
 *
 * <ul>
 *   <li>segments in ordinary memory (hugePages none or transparent): memory = memoryPerNode +
 *       {@link #JVM_HEADROOM_BYTES}, or the user's larger limit;
 *   <li>hugePages explicit: the segments are {@code hugepages-2Mi} (memoryPerNode rounded up to
 *       2Mi) and memory covers only the JVM ({@link #JVM_HEADROOM_BYTES}, or the user's larger
 *       limit). A node that cannot map huge pages then fails visibly instead of holding the same
 *       bytes twice.
 * </ul>
 *
 * Memory requests equal limits, so a storage pod is not the first victim under node pressure. The
 * JVM gets what the memory limit leaves besides the segments ({@link JvmMemory}). Devices of a
 * TransferEngine are requested as {@code resourceName: count} (requests = limits, as Kubernetes
 * requires for extended resources). Without a cpu request or limit of the user's, the container
 * requests {@link #DEFAULT_CPU_REQUEST} (no limit: a storage node may use idle cores for bursts of
 * transfers), so the scheduler counts it and policy linters (checkov CKV_K8S_10) find one.
 */
public final class StorageResources {
  /**
   * What the JVM of a storage node needs besides the segments: 256Mi heap, direct buffers,
   * metaspace, stacks.
   */
  public static final long JVM_HEADROOM_BYTES = 512L << 20;

  public static final String HUGEPAGES_2MI = "hugepages-2Mi";
  public static final Quantity DEFAULT_CPU_REQUEST = new Quantity("500m");
  private static final long HUGE_PAGE_BYTES = 2L << 20;

  private StorageResources() {}

  public static ContainerSizing of(DataPlaneSettings settings, TransportSettings transport) {
    Map<String, Quantity> requests = new LinkedHashMap<>();
    Map<String, Quantity> limits = new LinkedHashMap<>();
    ComputeResources user = settings.storageResources();
    if (user != null) {
      if (user.getRequests() != null) {
        requests.putAll(user.getRequests());
      }
      if (user.getLimits() != null) {
        limits.putAll(user.getLimits());
      }
    }
    if (!requests.containsKey("cpu") && !limits.containsKey("cpu")) {
      requests.put("cpu", DEFAULT_CPU_REQUEST);
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
    transport
        .devices()
        .ifPresent(
            devices -> {
              Quantity count = new Quantity(Integer.toString(devices.count()));
              requests.put(devices.resourceName(), count);
              limits.put(devices.resourceName(), count);
            });
    return new ContainerSizing(
        new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build(),
        JvmMemory.forBudget(memory - segmentsInMemoryBytes(settings)));
  }

  /** The segments' share of the memory limit: none when they are explicit huge pages. */
  static long segmentsInMemoryBytes(DataPlaneSettings settings) {
    return settings.hugePages() == HugePages.EXPLICIT ? 0 : settings.memoryPerNodeBytes();
  }

  /** Segments in memory + JVM headroom, or the user's larger limit. */
  public static long memoryLimitBytes(DataPlaneSettings settings) {
    long derived = segmentsInMemoryBytes(settings) + JVM_HEADROOM_BYTES;
    ComputeResources user = settings.storageResources();
    if (user != null && user.getLimits() != null && user.getLimits().get("memory") != null) {
      return Math.max(
          derived,
          ByteQuantity.bytes(
              "spec.storage.resources.limits.memory", user.getLimits().get("memory")));
    }
    return derived;
  }

  static long roundUpToHugePage(long bytes) {
    return (bytes + HUGE_PAGE_BYTES - 1) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
  }
}
