package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import org.junit.jupiter.api.Test;

class DisruptionBudgetsTest {
  private final KvCachePool pool = TestPools.defaultedPool("ns", "p");

  @Test
  void mastersLoseAtMostOnePodToVoluntaryDisruption() {
    PodDisruptionBudget pdb = DisruptionBudgets.master(pool);

    assertThat(pdb.getMetadata().getName()).isEqualTo("p-master");
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(pdb.getSpec().getSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/component", "master");
  }

  @Test
  void storageLosesAtMostOnePodToVoluntaryDisruption() {
    PodDisruptionBudget pdb = DisruptionBudgets.storage(pool);

    assertThat(pdb.getMetadata().getName()).isEqualTo("p-storage");
    assertThat(pdb.getSpec().getMaxUnavailable().getIntVal()).isEqualTo(1);
    assertThat(pdb.getSpec().getSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/component", "storage");
  }
}
