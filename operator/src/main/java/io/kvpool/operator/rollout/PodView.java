package io.kvpool.operator.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.render.MemoryFileVolume;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * What the rollout needs to know of one data-plane pod, read from the pod itself: its ordinal, the
 * release and template it was made from (recorded on it), readiness, whether it is stopping, when
 * it was created, its node, and whether it keeps its segments in memory files.
 *
 * @param templateHash the {@code kvpool.io/template-hash} it was made from
 * @param memoryFiles whether its spec mounts the node folder of memory files (a warm restart can
 *     adopt them)
 * @param drained whether the operator marked it drained for removal (scale-down)
 */
public record PodView(
    String name,
    Component component,
    int ordinal,
    String release,
    String image,
    String templateHash,
    boolean ready,
    boolean terminating,
    Instant createdAt,
    String nodeName,
    boolean memoryFiles,
    boolean drained) {

  /**
   * The view of a pool's data-plane pod; empty for other pods (check pods, pods without an
   * ordinal).
   */
  public static Optional<PodView> of(Pod pod, String poolName) {
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    Map<String, String> annotations =
        pod.getMetadata().getAnnotations() == null ? Map.of() : pod.getMetadata().getAnnotations();
    String componentLabel = labels.get(PoolLabels.COMPONENT);
    Component component =
        Component.MASTER.label().equals(componentLabel)
            ? Component.MASTER
            : Component.STORAGE.label().equals(componentLabel) ? Component.STORAGE : null;
    String prefix = poolName + "-" + (component == null ? "" : component.label()) + "-";
    String name = pod.getMetadata().getName();
    if (component == null
        || !name.startsWith(prefix)
        || !name.substring(prefix.length()).matches("[0-9]{1,6}")) {
      return Optional.empty();
    }
    String image =
        pod.getSpec() == null
                || pod.getSpec().getContainers() == null
                || pod.getSpec().getContainers().isEmpty()
            ? null
            : pod.getSpec().getContainers().get(0).getImage();
    boolean memoryFiles =
        pod.getSpec() != null
            && pod.getSpec().getVolumes() != null
            && pod.getSpec().getVolumes().stream()
                .anyMatch(v -> MemoryFileVolume.NAME.equals(v.getName()));
    Instant created =
        pod.getMetadata().getCreationTimestamp() == null
            ? null
            : Instant.parse(pod.getMetadata().getCreationTimestamp());
    return Optional.of(
        new PodView(
            name,
            component,
            Integer.parseInt(name.substring(prefix.length())),
            annotations.get(PoolLabels.RELEASE_ANNOTATION),
            image,
            annotations.get(PoolLabels.TEMPLATE_ANNOTATION),
            ready(pod),
            pod.getMetadata().getDeletionTimestamp() != null,
            created,
            pod.getSpec() == null ? null : pod.getSpec().getNodeName(),
            memoryFiles,
            "true".equals(annotations.get(PoolLabels.DRAINED_ANNOTATION))));
  }

  private static boolean ready(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    for (PodCondition c : pod.getStatus().getConditions()) {
      if ("Ready".equals(c.getType())) {
        return "True".equals(c.getStatus());
      }
    }
    return false;
  }
}
