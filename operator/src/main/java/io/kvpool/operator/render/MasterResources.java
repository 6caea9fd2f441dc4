package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.operator.common.ByteQuantity;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Resources of a master container: the user's, with defaults where the user said nothing about a
 * resource (memory 1Gi as request and limit, a cpu request of 250m), and the JVM sized from the
 * memory limit, else the request. The defaults keep a master off the best-effort class, the first
 * evicted under node pressure.
 */
public final class MasterResources {
  public static final Quantity DEFAULT_MEMORY = new Quantity("1Gi");
  public static final Quantity DEFAULT_CPU_REQUEST = new Quantity("250m");
  static final String FIELD = "spec.master.resources";

  private MasterResources() {}

  public static ContainerSizing of(DataPlaneSettings settings) {
    ComputeResources user = settings.masterResources();
    Map<String, Quantity> requests = copy(user == null ? null : user.getRequests());
    Map<String, Quantity> limits = copy(user == null ? null : user.getLimits());
    if (!requests.containsKey("memory") && !limits.containsKey("memory")) {
      requests.put("memory", DEFAULT_MEMORY);
      limits.put("memory", DEFAULT_MEMORY);
    }
    if (!requests.containsKey("cpu") && !limits.containsKey("cpu")) {
      requests.put("cpu", DEFAULT_CPU_REQUEST);
    }
    long budget =
        limits.containsKey("memory")
            ? ByteQuantity.bytes(FIELD + ".limits.memory", limits.get("memory"))
            : ByteQuantity.bytes(FIELD + ".requests.memory", requests.get("memory"));
    return new ContainerSizing(
        new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build(),
        JvmMemory.forBudget(budget));
  }

  private static Map<String, Quantity> copy(Map<String, Quantity> values) {
    return values == null ? new LinkedHashMap<>() : new LinkedHashMap<>(values);
  }
}
