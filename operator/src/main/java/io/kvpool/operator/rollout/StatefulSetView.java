package io.kvpool.operator.rollout;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.operator.common.PoolLabels;
import java.util.Map;

/**
 * What a rollout needs to know of one of the pool's StatefulSets, read from the StatefulSet itself:
 * the release and image it renders (recorded on it), its replica count, the hash of its pod
 * template, and whether its controller has seen its latest spec.
 *
 * @param replicas spec.replicas, null when unset
 * @param templateHash the {@code kvpool.io/template-hash} of its pod template
 */
public record StatefulSetView(
    String release,
    String image,
    Integer replicas,
    String templateHash,
    boolean generationObserved) {

  public static StatefulSetView of(StatefulSet sts) {
    Map<String, String> annotations =
        sts.getMetadata().getAnnotations() == null ? Map.of() : sts.getMetadata().getAnnotations();
    boolean observed =
        sts.getStatus() != null
            && sts.getStatus().getObservedGeneration() != null
            && sts.getStatus().getObservedGeneration() >= sts.getMetadata().getGeneration();
    return new StatefulSetView(
        annotations.get(PoolLabels.RELEASE_ANNOTATION),
        annotations.get(PoolLabels.IMAGE_ANNOTATION),
        sts.getSpec().getReplicas(),
        templateOf(sts),
        observed);
  }

  /**
   * The {@code kvpool.io/template-hash} of {@code sts}'s pod template, as the operator rendered it.
   */
  public static String templateOf(StatefulSet sts) {
    var meta = sts.getSpec().getTemplate().getMetadata();
    return meta == null || meta.getAnnotations() == null
        ? null
        : meta.getAnnotations().get(PoolLabels.TEMPLATE_ANNOTATION);
  }

  /** Its controller has seen its latest spec, and that spec holds {@code template}. */
  public boolean settled(String template) {
    return generationObserved && template != null && template.equals(templateHash);
  }
}
