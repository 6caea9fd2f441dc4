package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.kvpool.operator.common.PoolLabels.Component;
import java.util.Map;

/**
 * The metadata of every object a pool owns: its name, the pool's namespace, the pool's labels and a
 * controller owner reference to the pool. One place, so that no object of a pool can miss a label
 * or its owner.
 */
public final class PoolObjectMeta {
  private PoolObjectMeta() {}

  /**
   * Metadata of an object that belongs to the whole pool (ConfigMaps, RBAC, disruption budgets).
   */
  public static ObjectMeta of(HasMetadata pool, String name) {
    return builder(pool, name, PoolLabels.common(pool)).build();
  }

  /** Like {@link #of(HasMetadata, String)}, plus annotations. */
  public static ObjectMeta of(HasMetadata pool, String name, Map<String, String> annotations) {
    return builder(pool, name, PoolLabels.common(pool)).withAnnotations(annotations).build();
  }

  /** Metadata of an object of one component; its labels include the release. */
  public static ObjectMeta of(HasMetadata pool, String name, Component component, String version) {
    return builder(pool, name, PoolLabels.component(pool, component, version)).build();
  }

  /** Like {@link #of(HasMetadata, String, Component, String)}, plus annotations. */
  public static ObjectMeta of(
      HasMetadata pool,
      String name,
      Component component,
      String version,
      Map<String, String> annotations) {
    return builder(pool, name, PoolLabels.component(pool, component, version))
        .withAnnotations(annotations)
        .build();
  }

  /**
   * The owner reference to the pool: marked as its controller (kubectl shows "Controlled By", no
   * second controller can adopt the object) and blocking a foreground deletion of the pool until
   * the object is gone. The garbage collector deletes these objects when the pool is deleted; the
   * operator needs no finalizer.
   */
  public static OwnerReference controlledBy(HasMetadata pool) {
    return new OwnerReferenceBuilder()
        .withApiVersion(pool.getApiVersion())
        .withKind(pool.getKind())
        .withName(pool.getMetadata().getName())
        .withUid(pool.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }

  private static ObjectMetaBuilder builder(
      HasMetadata pool, String name, Map<String, String> labels) {
    return new ObjectMetaBuilder()
        .withName(name)
        .withNamespace(pool.getMetadata().getNamespace())
        .withOwnerReferences(controlledBy(pool))
        .withLabels(labels);
  }
}
