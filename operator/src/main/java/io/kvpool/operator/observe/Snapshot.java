package io.kvpool.operator.observe;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.FailingPod;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.KvCachePoolSpec;
import io.kvpool.operator.common.PoolLabels;
import io.kvpool.operator.common.PoolLabels.Component;
import io.kvpool.operator.rollout.ImageCheck;
import io.kvpool.operator.rollout.LivePool;
import io.kvpool.operator.rollout.RolloutRound;
import io.kvpool.operator.rollout.StatefulSetView;
import io.kvpool.operator.status.PodFailures;
import io.kvpool.operator.status.PoolObservation;
import io.kvpool.operator.status.ReplicaState;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What one reconciliation of a pool read ({@link PoolObserver}), and the two views made of it: the
 * pool as a rollout round finds it ({@link #rollout()}) and the observation its status is computed
 * from ({@link #status}).
 *
 * @param masters the master StatefulSet, absent before it exists
 * @param storage the storage StatefulSet, absent before it exists
 * @param pods every pod of the pool: masters, storage nodes and image check pods
 */
public record Snapshot(
    KvCachePool pool,
    Optional<StatefulSet> masters,
    Optional<StatefulSet> storage,
    List<Pod> pods,
    Leader leader) {
  public Snapshot {
    pods = List.copyOf(pods);
  }

  /**
   * The leader as its admin API answered.
   *
   * @param status its {@code /status}, absent when it could not be read
   * @param error why it could not be read, or null
   * @param adminBase where its admin API is, once that address could be built
   */
  public record Leader(Optional<MasterStatus> status, String error, Optional<URI> adminBase) {}

  /** The pool's pods and StatefulSets as the rollout reads them. */
  public LivePool rollout() {
    return new LivePool(pods, masters.map(StatefulSetView::of), storage.map(StatefulSetView::of));
  }

  /**
   * The observation the pool's status is computed from; reads the spec only where any value the API
   * server admits is safe to read.
   *
   * @param problems what makes the spec invalid; empty when valid
   * @param reconcileError why applying the objects failed, or null
   * @param rollout what the rollout decided and did; empty when the spec is invalid or the apply
   *     failed
   */
  public PoolObservation status(
      List<String> problems, String reconcileError, Optional<RolloutRound.Result> rollout) {
    List<Pod> dataPlane = pods.stream().filter(p -> !ImageCheck.isCheckPod(p)).toList();
    KvCachePoolSpec spec = pool.getSpec();
    Integer objectReplicas = spec == null ? null : spec.getObjectReplicas();
    Set<String> releases =
        dataPlane.stream()
            .map(
                pod ->
                    pod.getMetadata().getAnnotations() == null
                        ? null
                        : pod.getMetadata().getAnnotations().get(PoolLabels.RELEASE_ANNOTATION))
            .filter(Objects::nonNull)
            .collect(Collectors.toSet());
    List<FailingPod> failing = PodFailures.of(dataPlane);
    String labelledLeader =
        dataPlane.stream()
            .filter(
                pod ->
                    PoolLabels.ROLE_LEADER.equals(
                        pod.getMetadata().getLabels().get(PoolLabels.ROLE)))
            .map(pod -> pod.getMetadata().getName())
            .sorted()
            .findFirst()
            .orElse(null);
    return new PoolObservation(
        pool.getMetadata().getName(),
        pool.getMetadata().getGeneration() == null ? 0 : pool.getMetadata().getGeneration(),
        spec == null ? null : spec.getVersion(),
        objectReplicas == null ? KvCachePoolSpec.DEFAULT_OBJECT_REPLICAS : objectReplicas,
        problems,
        masters.map(ReplicaState::of),
        storage.map(ReplicaState::of),
        leader.status(),
        leader.error(),
        failing,
        releases,
        labelledLeader,
        PoolLabels.selectorString(pool, Component.STORAGE),
        reconcileError,
        rollout);
  }
}
