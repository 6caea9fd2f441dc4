package io.kvpool.operator.pool;

import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.transferengine.EngineReference;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Watches TransferEngines for the pool controller: a change of an engine reconciles every pool that
 * references it (so their ConfigMaps and storage pods follow), and a pool finds its engine by
 * reference.
 */
public final class TransferEngineToPools {
  public static final String EVENT_SOURCE = "transfer-engines";

  private TransferEngineToPools() {}

  public static InformerEventSource<TransferEngine, KvCachePool> eventSource(
      EventSourceContext<KvCachePool> context) {
    var configuration =
        InformerEventSourceConfiguration.from(TransferEngine.class, KvCachePool.class)
            .withName(EVENT_SOURCE)
            .withNamespacesInheritedFromController()
            .withSecondaryToPrimaryMapper(engine -> poolsReferencing(context, engine))
            .withPrimaryToSecondaryMapper(EngineReference::of)
            .build();
    return new InformerEventSource<>(configuration, context);
  }

  private static Set<ResourceID> poolsReferencing(
      EventSourceContext<KvCachePool> context, TransferEngine engine) {
    String name = engine.getMetadata().getName();
    return context
        .getPrimaryCache()
        .list(engine.getMetadata().getNamespace())
        .filter(
            pool ->
                pool.getSpec() != null
                    && pool.getSpec().getTransferEngineRef() != null
                    && name.equals(pool.getSpec().getTransferEngineRef().getName()))
        .map(ResourceID::fromResource)
        .collect(Collectors.toSet());
  }
}
