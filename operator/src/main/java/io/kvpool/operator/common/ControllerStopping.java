package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;

/**
 * Whether the controller of a reconciliation is stopping. Java Operator SDK 5 stops a controller's
 * informers (its own first, then the secondary ones) before the reconciliations in flight end, so
 * such a reconciliation may have read emptied caches: a TransferEngine "missing", no pods, no
 * pools. Checked after observing and before writing status: while the controller's own informer
 * runs, none has been stopped yet.
 */
public final class ControllerStopping {
  private ControllerStopping() {}

  public static boolean now(Context<? extends HasMetadata> context) {
    return !context.eventSourceRetriever().getControllerEventSource().isRunning();
  }
}
