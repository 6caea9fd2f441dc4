package io.kvpool.operator.status;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetStatus;
import io.kvpool.operator.common.PoolLabels;
import java.util.Objects;

/**
 * The rollout state of one StatefulSet, as its controller reports it in status.
 *
 * @param created pods that exist (status.replicas); fewer than desired once the controller has seen
 *     the spec means it cannot create the others (a Pod Security level or quota refusing them: its
 *     Events say which)
 */
public record ReplicaState(
    int desired,
    int ready,
    int updated,
    boolean revisionsMatch,
    boolean generationObserved,
    String version,
    int created) {

  /** A state in which every desired pod exists. */
  public ReplicaState(
      int desired,
      int ready,
      int updated,
      boolean revisionsMatch,
      boolean generationObserved,
      String version) {
    this(desired, ready, updated, revisionsMatch, generationObserved, version, desired);
  }

  public static ReplicaState of(StatefulSet sts) {
    StatefulSetStatus status = sts.getStatus() == null ? new StatefulSetStatus() : sts.getStatus();
    int desired = sts.getSpec().getReplicas() == null ? 1 : sts.getSpec().getReplicas();
    // the StatefulSet controller advances currentRevision only under RollingUpdate; an OnDelete
    // StatefulSet (the
    // operator's) reports its first revision as current forever, so there only updatedReplicas
    // tells
    boolean onDelete =
        sts.getSpec().getUpdateStrategy() != null
            && "OnDelete".equals(sts.getSpec().getUpdateStrategy().getType());
    boolean revisionsMatch =
        onDelete
            || status.getUpdateRevision() == null
            || Objects.equals(status.getCurrentRevision(), status.getUpdateRevision());
    boolean observed =
        status.getObservedGeneration() != null
            && status.getObservedGeneration() >= sts.getMetadata().getGeneration();
    String version =
        sts.getMetadata().getLabels() == null
            ? null
            : sts.getMetadata().getLabels().get(PoolLabels.VERSION);
    return new ReplicaState(
        desired,
        orZero(status.getReadyReplicas()),
        orZero(status.getUpdatedReplicas()),
        revisionsMatch,
        observed,
        version,
        orZero(status.getReplicas()));
  }

  public boolean allReady() {
    return ready >= desired;
  }

  /** Every pod runs the current template and the controller has seen the latest spec. */
  public boolean rolledOut() {
    return generationObserved && revisionsMatch && updated >= desired;
  }

  /**
   * The controller has seen the spec and still has fewer pods than desired: it cannot create them.
   */
  public boolean podsMissing() {
    return generationObserved && created < desired;
  }

  public String fraction() {
    return ready + "/" + desired;
  }

  private static int orZero(Integer value) {
    return value == null ? 0 : value;
  }
}
