package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.rollout.ImageCheck;
import java.util.Set;

/**
 * Watches the pods of every pool for the pool controller: a pod that becomes ready, crash-loops,
 * cannot pull its image or cannot be scheduled changes the pool's status at once, not at the next
 * status interval. The pods are selected by the labels the pool's StatefulSets select them with
 * ({@code app.kubernetes.io/name=kvpool}, component master or storage), plus the short-lived image
 * check pods of rollouts (component version-check); {@code app.kubernetes.io/instance} names their
 * pool.
 */
public final class PoolPods {
  public static final String EVENT_SOURCE = "pods";
  static final String SELECTOR =
      PoolLabels.NAME
          + "="
          + PoolLabels.APP
          + ","
          + PoolLabels.COMPONENT
          + " in ("
          + Component.MASTER.label()
          + ","
          + Component.STORAGE.label()
          + ","
          + ImageCheck.COMPONENT
          + ")";

  private PoolPods() {}

  public static InformerEventSource<Pod, KvCachePool> eventSource(
      EventSourceContext<KvCachePool> context) {
    var configuration =
        InformerEventSourceConfiguration.from(Pod.class, KvCachePool.class)
            .withName(EVENT_SOURCE)
            .withNamespacesInheritedFromController()
            .withLabelSelector(SELECTOR)
            .withSecondaryToPrimaryMapper(
                pod -> {
                  String pool =
                      pod.getMetadata().getLabels() == null
                          ? null
                          : pod.getMetadata().getLabels().get(PoolLabels.INSTANCE);
                  return pool == null
                      ? Set.of()
                      : Set.of(new ResourceID(pool, pod.getMetadata().getNamespace()));
                })
            .build();
    return new InformerEventSource<>(configuration, context);
  }
}
