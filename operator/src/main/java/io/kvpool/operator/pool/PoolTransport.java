package io.kvpool.operator.pool;

import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.operator.transferengine.TransportSettings;

/** The transport of a pool: its referenced TransferEngine from the informer cache, or plain TCP. */
public final class PoolTransport {
  private PoolTransport() {
  }

  public static TransportSettings of(KvCachePool pool, Context<KvCachePool> context) {
    if (pool.getSpec().getTransferEngineRef() == null) {
      return TransportSettings.PLAIN_TCP;
    }
    return context.getSecondaryResource(TransferEngine.class)
        .map(TransportSettings::of)
        .orElseThrow(() -> new IllegalStateException("KvCachePool " + pool.getMetadata().getName()
            + " references TransferEngine " + pool.getSpec().getTransferEngineRef().getName()
            + " which is not in the cache; the spec validator should have stopped this reconciliation"));
  }
}
