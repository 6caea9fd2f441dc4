package io.kvpool.operator.status;

import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.FailingPod;
import io.kvpool.operator.autoscale.AutoscalingOutcome;
import io.kvpool.operator.rollout.RolloutRound;
import io.kvpool.operator.transferengine.EnginePreflight;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Everything the status of a pool is computed from, gathered by the reconciler in one
 * reconciliation: what is observed now, never what an earlier status said.
 *
 * @param poolName metadata.name of the pool; its storage nodes are {@code
 *     <poolName>-storage-<ordinal>}
 * @param generation metadata.generation of the pool
 * @param specVersion spec.version as written now (valid or not)
 * @param objectReplicas copies per object; Available needs at least that many live storage nodes
 * @param specProblems what makes the spec invalid; empty when valid
 * @param masters the master StatefulSet's state, absent before it exists
 * @param storage the storage StatefulSet's state, absent before it exists
 * @param master the leader's /status, absent when it could not be read
 * @param masterError why /status could not be read, when it could not
 * @param failingPods the pool's pods that cannot start, and why
 * @param podReleases the releases recorded on the pool's pods ({@code kvpool.io/release})
 * @param labelledLeader the pool's pod the elected master labelled {@code kvpool.io/role=leader},
 *     or null
 * @param storageSelector label selector of the storage pods, for the scale subresource
 * @param reconcileError why applying the objects failed in this reconciliation, or null
 * @param rollout what the rollout decided and did in this reconciliation; empty when the spec is
 *     invalid
 * @param autoscaling what autoscaling decided in this reconciliation; empty when it is off or the
 *     spec is invalid
 * @param preflight the TransferEngine's preflight findings with this pool (none without an engine)
 */
public record PoolObservation(
    String poolName,
    long generation,
    String specVersion,
    int objectReplicas,
    List<String> specProblems,
    Optional<ReplicaState> masters,
    Optional<ReplicaState> storage,
    Optional<MasterStatus> master,
    String masterError,
    List<FailingPod> failingPods,
    Set<String> podReleases,
    String labelledLeader,
    String storageSelector,
    String reconcileError,
    Optional<RolloutRound.Result> rollout,
    Optional<AutoscalingOutcome> autoscaling,
    List<EnginePreflight.Finding> preflight) {

  /** A reconciliation without an autoscaling decision. */
  public PoolObservation(
      String poolName,
      long generation,
      String specVersion,
      int objectReplicas,
      List<String> specProblems,
      Optional<ReplicaState> masters,
      Optional<ReplicaState> storage,
      Optional<MasterStatus> master,
      String masterError,
      List<FailingPod> failingPods,
      Set<String> podReleases,
      String labelledLeader,
      String storageSelector,
      String reconcileError,
      Optional<RolloutRound.Result> rollout) {
    this(
        poolName,
        generation,
        specVersion,
        objectReplicas,
        specProblems,
        masters,
        storage,
        master,
        masterError,
        failingPods,
        podReleases,
        labelledLeader,
        storageSelector,
        reconcileError,
        rollout,
        Optional.empty(),
        List.of());
  }

  /** This observation with autoscaling's decision. */
  public PoolObservation withAutoscaling(Optional<AutoscalingOutcome> outcome) {
    return withDecisions(outcome, preflight);
  }

  /** This observation with the preflight's findings. */
  public PoolObservation withPreflight(List<EnginePreflight.Finding> findings) {
    return withDecisions(autoscaling, List.copyOf(findings));
  }

  private PoolObservation withDecisions(
      Optional<AutoscalingOutcome> outcome, List<EnginePreflight.Finding> findings) {
    return new PoolObservation(
        poolName,
        generation,
        specVersion,
        objectReplicas,
        specProblems,
        masters,
        storage,
        master,
        masterError,
        failingPods,
        podReleases,
        labelledLeader,
        storageSelector,
        reconcileError,
        rollout,
        outcome,
        findings);
  }

  public boolean specValid() {
    return specProblems.isEmpty();
  }

  public boolean deployed() {
    return masters.isPresent() && storage.isPresent();
  }
}
