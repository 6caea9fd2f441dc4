package io.kvpool.operator.rollout;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * The pool as a rollout round finds it, read once per reconciliation before anything is applied:
 * every pod of the pool (data-plane pods and image check pods), and its two StatefulSets, empty
 * before they exist.
 */
public record LivePool(
    List<Pod> pods, Optional<StatefulSetView> masters, Optional<StatefulSetView> storage) {
  public LivePool {
    pods = List.copyOf(pods);
  }
}
