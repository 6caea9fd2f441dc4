package io.kvpool.operator.transferengine;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.kvpool.api.v1alpha1.KvCachePool;
import java.util.Set;

/** The TransferEngine a pool names in {@code spec.transferEngineRef}, in the pool's namespace. */
public final class EngineReference {
  private EngineReference() {}

  /** The engine {@code pool} references; empty when it names none. */
  public static Set<ResourceID> of(KvCachePool pool) {
    return pool.getSpec() == null || pool.getSpec().getTransferEngineRef() == null
        ? Set.of()
        : Set.of(
            new ResourceID(
                pool.getSpec().getTransferEngineRef().getName(),
                pool.getMetadata().getNamespace()));
  }
}
