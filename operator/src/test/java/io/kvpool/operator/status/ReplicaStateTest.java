package io.kvpool.operator.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import org.junit.jupiter.api.Test;

class ReplicaStateTest {

  private static StatefulSet statefulSet(
      String strategy, String current, String update, int updated) {
    return new StatefulSetBuilder()
        .withNewMetadata()
        .withName("p-storage")
        .withGeneration(2L)
        .endMetadata()
        .withNewSpec()
        .withReplicas(3)
        .withNewUpdateStrategy()
        .withType(strategy)
        .endUpdateStrategy()
        .endSpec()
        .withNewStatus()
        .withObservedGeneration(2L)
        .withReplicas(3)
        .withReadyReplicas(3)
        .withUpdatedReplicas(updated)
        .withCurrentRevision(current)
        .withUpdateRevision(update)
        .endStatus()
        .build();
  }

  @Test
  void
      anOnDeleteStatefulSetIsRolledOutOnceEveryPodRunsTheUpdateRevisionThoughItsCurrentRevisionNeverMoves() {
    // what the real StatefulSet controller reports after the operator replaced every pod of an
    // OnDelete set
    assertThat(
            ReplicaState.of(statefulSet("OnDelete", "p-storage-1", "p-storage-2", 3)).rolledOut())
        .isTrue();
    assertThat(
            ReplicaState.of(statefulSet("OnDelete", "p-storage-1", "p-storage-2", 2)).rolledOut())
        .isFalse();
  }

  @Test
  void aRollingUpdateStatefulSetIsRolledOutWhenItsControllerSaysSo() {
    assertThat(ReplicaState.of(statefulSet("RollingUpdate", "r-1", "r-2", 3)).rolledOut())
        .isFalse();
    assertThat(ReplicaState.of(statefulSet("RollingUpdate", "r-2", "r-2", 3)).rolledOut()).isTrue();
  }
}
