package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.LinkedHashMap;
import java.util.Map;

/** The labels every object of a pool carries, and the selectors that find its pods. */
public final class PoolLabels {
  public static final String NAME = "app.kubernetes.io/name";
  public static final String INSTANCE = "app.kubernetes.io/instance";
  public static final String COMPONENT = "app.kubernetes.io/component";
  public static final String VERSION = "app.kubernetes.io/version";
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  public static final String POOL = "kvpool.io/pool";

  /** Set by the elected master on its own pod; the leader Service selects it. */
  public static final String ROLE = "kvpool.io/role";

  public static final String ROLE_LEADER = "leader";

  /**
   * Release the pod runs, recorded so a half-finished upgrade is visible after an operator restart.
   */
  public static final String RELEASE_ANNOTATION = "kvpool.io/release";

  /**
   * Image the pods of a StatefulSet were built from; lets the validator see an image-only change.
   */
  public static final String IMAGE_ANNOTATION = "kvpool.io/image";

  /**
   * Hash of a pod template as the operator renders it (without this annotation), on the
   * StatefulSet's template and so on every pod made from it: a pod whose hash differs from its
   * StatefulSet's runs an outdated template and is replaced by the rollout, one pod at a time.
   */
  public static final String TEMPLATE_ANNOTATION = "kvpool.io/template-hash";

  /**
   * Hash of the pool ConfigMap keys a component reads at start: a change of them is a change of its
   * template.
   */
  public static final String CONFIG_ANNOTATION = "kvpool.io/config-hash";

  /**
   * On a surplus storage pod the leader has drained: the StatefulSet may now be scaled below it.
   */
  public static final String DRAINED_ANNOTATION = "kvpool.io/drained-for-removal";

  public static final String APP = "kvpool";
  public static final String OPERATOR = "kvpool-operator";

  /**
   * Informers of dependents watch only objects carrying this, not every ConfigMap of the cluster.
   */
  public static final String MANAGED_SELECTOR = MANAGED_BY + "=" + OPERATOR;

  private PoolLabels() {}

  /** Labels shared by all objects of a pool, whatever their component. */
  public static Map<String, String> common(HasMetadata pool) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME, APP);
    labels.put(INSTANCE, pool.getMetadata().getName());
    labels.put(MANAGED_BY, OPERATOR);
    labels.put(POOL, pool.getMetadata().getName());
    return labels;
  }

  /** Labels of the objects of one component; includes the release so pods record their version. */
  public static Map<String, String> component(
      HasMetadata pool, Component component, String version) {
    Map<String, String> labels = common(pool);
    labels.put(COMPONENT, component.label());
    labels.put(VERSION, version);
    return labels;
  }

  /** Stable pod selector of a component: never includes the version, which changes on upgrade. */
  public static Map<String, String> selector(HasMetadata pool, Component component) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME, APP);
    labels.put(INSTANCE, pool.getMetadata().getName());
    labels.put(COMPONENT, component.label());
    return labels;
  }

  /** The selector in the {@code k=v,k=v} form used by the scale subresource and kubectl. */
  public static String selectorString(HasMetadata pool, Component component) {
    StringBuilder out = new StringBuilder();
    selector(pool, component)
        .forEach(
            (k, v) -> {
              if (out.length() > 0) {
                out.append(',');
              }
              out.append(k).append('=').append(v);
            });
    return out.toString();
  }

  /** The two kinds of data-plane pods of a pool. */
  public enum Component {
    MASTER("master"),
    STORAGE("storage");

    private final String label;

    Component(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }
}
