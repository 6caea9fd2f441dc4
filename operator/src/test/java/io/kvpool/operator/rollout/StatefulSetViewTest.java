package io.kvpool.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.render.StatefulSets;
import org.junit.jupiter.api.Test;

class StatefulSetViewTest {
  private static final StatefulSet RENDERED =
      StatefulSets.master(TestPools.defaultedPool("ns", "p"));
  private static final String TEMPLATE = StatefulSetView.templateOf(RENDERED);

  private static StatefulSet live(long generation, Long observed) {
    return new StatefulSetBuilder(RENDERED)
        .editMetadata()
        .withGeneration(generation)
        .endMetadata()
        .withNewStatus()
        .withObservedGeneration(observed)
        .endStatus()
        .build();
  }

  @Test
  void aTemplateIsTakenOnceTheControllerHasSeenTheSpecThatHoldsIt() {
    assertThat(TEMPLATE).isNotBlank();
    assertThat(StatefulSetView.of(live(2, 2L)).settled(TEMPLATE)).isTrue();
    assertThat(StatefulSetView.of(live(2, 1L)).settled(TEMPLATE))
        .as("the controller has not seen it yet")
        .isFalse();
    assertThat(StatefulSetView.of(live(2, null)).settled(TEMPLATE)).isFalse();
    assertThat(StatefulSetView.of(live(2, 2L)).settled("0000000000"))
        .as("another template")
        .isFalse();
    assertThat(StatefulSetView.of(live(2, 2L)).settled(null)).isFalse();
  }
}
