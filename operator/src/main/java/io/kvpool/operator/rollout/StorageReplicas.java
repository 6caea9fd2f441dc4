package io.kvpool.operator.rollout;

import java.util.List;
import java.util.Optional;

/**
 * The storage StatefulSet's replica count during a scale-down: it never drops below a pod that
 * still holds replicas, so the StatefulSet controller (which would delete every surplus pod at
 * once) removes one drained pod at a time, highest ordinal first. A scale-up is rendered at once:
 * new nodes register and take placements.
 */
public final class StorageReplicas {
  private StorageReplicas() {}

  /**
   * @param desired spec.storage.replicas
   * @param current the StatefulSet's replicas now, empty before it exists
   * @param storage the pool's storage pods
   * @return the replicas to render, empty for {@code desired}
   */
  public static Optional<Integer> render(
      int desired, Optional<Integer> current, List<PodView> storage) {
    if (current.isEmpty() || desired >= current.get()) {
      return Optional.empty();
    }
    int top = current.get() - 1;
    Optional<PodView> highest = storage.stream().filter(p -> p.ordinal() == top).findFirst();
    boolean removable = highest.isEmpty() || highest.get().drained();
    return Optional.of(removable ? top : current.get());
  }
}
