package io.kvpool.operator.transferengine;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferEngineStatus;
import io.kvpool.api.v1alpha1.TransportUsage;
import io.kvpool.operator.common.ControllerStopping;
import io.kvpool.operator.common.InvalidSpecException;
import io.quarkiverse.operatorsdk.annotations.RBACRule;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

/**
 * Reconciles a TransferEngine into its status: which pools use it and whether any node advertises
 * the device resource it asks for. The engine's settings reach pods through the pool controller,
 * which watches engines. Nodes are re-read on a timer: their allocatable changes carry no event for
 * engines.
 */
@Singleton
@ControllerConfiguration(name = TransferEngineReconciler.NAME)
@RBACRule(
    apiGroups = "",
    resources = "nodes",
    verbs = {"get", "list"})
@RBACRule(
    apiGroups = "kvpool.io",
    resources = "kvcachepools",
    verbs = {"get", "list", "watch"})
public class TransferEngineReconciler implements Reconciler<TransferEngine> {
  public static final String NAME = "transferengine";
  private static final Duration NODE_RECHECK = Duration.ofSeconds(60);

  private final TransferEngineStatusAggregator aggregator;

  @Inject
  public TransferEngineReconciler(Clock clock) {
    this.aggregator = new TransferEngineStatusAggregator(clock);
  }

  @Override
  public List<EventSource<?, TransferEngine>> prepareEventSources(
      EventSourceContext<TransferEngine> context) {
    var pools =
        InformerEventSourceConfiguration.from(KvCachePool.class, TransferEngine.class)
            .withName("pools")
            .withNamespacesInheritedFromController()
            .withSecondaryToPrimaryMapper(EngineReference::of)
            .build();
    return List.of(new InformerEventSource<>(pools, context));
  }

  @Override
  public UpdateControl<TransferEngine> reconcile(
      TransferEngine engine, Context<TransferEngine> context) {
    List<String> pools =
        context
            .getSecondaryResourcesAsStream(KvCachePool.class)
            .map(pool -> pool.getMetadata().getName())
            .sorted()
            .distinct()
            .toList();
    TransferEngineStatus status;
    try {
      TransportSettings transport = TransportSettings.of(engine);
      int nodesWithDevice =
          transport
              .devices()
              .map(devices -> countNodesAdvertising(context, devices.resourceName()))
              .orElse(0);
      status = aggregator.aggregate(engine, transport, pools, nodesWithDevice);
    } catch (InvalidSpecException e) {
      status = aggregator.invalid(engine, pools, e.getMessage());
    }
    status.setUsage(usage(context));
    if (status.equals(engine.getStatus()) || ControllerStopping.now(context)) {
      return UpdateControl.<TransferEngine>noUpdate().rescheduleAfter(NODE_RECHECK);
    }
    engine.setStatus(status);
    return UpdateControl.patchStatus(engine).rescheduleAfter(NODE_RECHECK);
  }

  /**
   * What each pool using the engine reports of its live nodes' transport and devices (from its
   * leader).
   */
  private static List<TransportUsage> usage(Context<TransferEngine> context) {
    List<TransportUsage> usage =
        context
            .getSecondaryResourcesAsStream(KvCachePool.class)
            .filter(p -> p.getStatus() != null && p.getStatus().getTransport() != null)
            .sorted(java.util.Comparator.comparing(p -> p.getMetadata().getName()))
            .map(
                p -> {
                  TransportUsage u = p.getStatus().getTransport();
                  TransportUsage copy = new TransportUsage();
                  copy.setPool(p.getMetadata().getName());
                  copy.setProtocol(u.getProtocol());
                  copy.setStorageNodes(u.getStorageNodes());
                  copy.setDevices(u.getDevices());
                  return copy;
                })
            .toList();
    return usage.isEmpty() ? null : usage;
  }

  private static int countNodesAdvertising(Context<TransferEngine> context, String resourceName) {
    int count = 0;
    for (Node node : context.getClient().nodes().list().getItems()) {
      if (node.getStatus() == null || node.getStatus().getAllocatable() == null) {
        continue;
      }
      Quantity amount = node.getStatus().getAllocatable().get(resourceName);
      if (amount != null && amount.getNumericalAmount().signum() > 0) {
        count++;
      }
    }
    return count;
  }
}
