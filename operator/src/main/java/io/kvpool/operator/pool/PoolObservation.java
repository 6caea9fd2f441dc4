package io.kvpool.operator.pool;

import java.util.List;
import java.util.Optional;

/**
 * Everything the status of a pool is computed from, gathered by the reconciler.
 *
 * @param generation metadata.generation of the pool
 * @param specVersion spec.version as written now (valid or not)
 * @param objectReplicas copies per object; Available needs at least that many ready storage nodes
 * @param specProblems what makes the spec invalid; empty when valid
 * @param masters the master StatefulSet's state, absent before it exists
 * @param storage the storage StatefulSet's state, absent before it exists
 * @param master the leader's /status, absent when it could not be read
 * @param masterError why /status could not be read, when it could not
 * @param leaderPod the pod labelled kvpool.io/role=leader, when there is one
 * @param storageSelector label selector of the storage pods, for the scale subresource
 * @param reconcileError why applying the dependents failed in this reconciliation, or null
 */
public record PoolObservation(
    long generation,
    String specVersion,
    int objectReplicas,
    List<String> specProblems,
    Optional<ReplicaState> masters,
    Optional<ReplicaState> storage,
    Optional<MasterStatus> master,
    String masterError,
    Optional<String> leaderPod,
    String storageSelector,
    String reconcileError) {

  public boolean specValid() {
    return specProblems.isEmpty();
  }

  public boolean deployed() {
    return masters.isPresent() && storage.isPresent();
  }
}
