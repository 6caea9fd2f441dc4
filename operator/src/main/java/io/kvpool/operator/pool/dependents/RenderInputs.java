package io.kvpool.operator.pool.dependents;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.render.PoolRollout;
import io.kvpool.operator.transferengine.TransportSettings;

/**
 * What the dependents render from besides the pool, as this reconciliation's context holds it: the
 * transport of the pool's TransferEngine, and the release (and storage replica count) the rollout
 * decided. The reconciler decides the rollout once per reconciliation, before the workflow runs,
 * and puts it here under its type; without it (a dry run, a test) the spec is rendered as written.
 */
public final class RenderInputs {
  private RenderInputs() {}

  /**
   * The transport of a pool: its referenced TransferEngine from the informer cache, or plain TCP.
   */
  public static TransportSettings transport(KvCachePool pool, Context<KvCachePool> context) {
    if (pool.getSpec().getTransferEngineRef() == null) {
      return TransportSettings.PLAIN_TCP;
    }
    return context
        .getSecondaryResource(TransferEngine.class)
        .map(TransportSettings::of)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "KvCachePool "
                        + pool.getMetadata().getName()
                        + " references TransferEngine "
                        + pool.getSpec().getTransferEngineRef().getName()
                        + " which is not in the cache; the spec validator should have stopped this reconciliation"));
  }

  /** The rollout's decision the reconciler put in the context, else the spec as written. */
  public static PoolRollout rollout(KvCachePool pool, Context<KvCachePool> context) {
    return context
        .managedWorkflowAndDependentResourceContext()
        .get(PoolRollout.class, PoolRollout.class)
        .orElseGet(() -> PoolRollout.ofSpec(pool));
  }

  /** Hands the rollout's decision to this reconciliation's dependents. */
  public static void putRollout(Context<KvCachePool> context, PoolRollout rollout) {
    context.managedWorkflowAndDependentResourceContext().put(PoolRollout.class, rollout);
  }
}
