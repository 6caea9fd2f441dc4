package io.kvpool.operator.pool;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.kvpool.operator.common.PoolLabels;
import java.util.Objects;

/** The rollout state of one StatefulSet, as its controller reports it in status. */
public record ReplicaState(int desired, int ready, int updated, boolean revisionsMatch, boolean generationObserved,
    String version) {

  public static ReplicaState of(StatefulSet sts) {
    StatefulSetStatus status = sts.getStatus() == null ? new StatefulSetStatus() : sts.getStatus();
    int desired = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
    boolean revisionsMatch = status.getUpdateRevision() == null
        || Objects.equals(status.getCurrentRevision(), status.getUpdateRevision());
    boolean observed = status.getObservedGeneration() != null
        && status.getObservedGeneration() >= sts.getMetadata().getGeneration();
    String version = sts.getMetadata().getLabels() == null ? null
        : sts.getMetadata().getLabels().get(PoolLabels.VERSION);
    return new ReplicaState(desired, orZero(status.getReadyReplicas()), orZero(status.getUpdatedReplicas()),
        revisionsMatch, observed, version);
  }

  public boolean allReady() {
    return ready >= desired;
  }

  /** Every pod runs the current template and the controller has seen the latest spec. */
  public boolean rolledOut() {
    return generationObserved && revisionsMatch && updated >= desired;
  }

  public String fraction() {
    return ready + "/" + desired;
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
