package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;

/**
 * The owner reference of every object a pool owns: marked as its controller (kubectl shows "Controlled By",
 * no second controller can adopt it) and blocking a foreground deletion of the pool until it is gone.
 * The garbage collector deletes these objects when the pool is deleted; the operator needs no finalizer.
 */
public final class Ownership {
  private Ownership() {
  }

  public static OwnerReference controlledBy(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
