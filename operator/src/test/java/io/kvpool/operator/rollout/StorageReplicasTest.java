package io.kvpool.operator.rollout;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.operator.common.PoolLabels.Component;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A scale-down shrinks the StatefulSet one drained pod at a time; a scale-up at once. */
class StorageReplicasTest {
  private static PodView pod(int ordinal, boolean drained) {
    return new PodView(
        "p-storage-" + ordinal,
        Component.STORAGE,
        ordinal,
        "1.0.0",
        "img",
        "t",
        true,
        false,
        Instant.EPOCH,
        "n",
        false,
        drained);
  }

  @Test
  void scaleUpAndNewPoolsRenderTheSpec() {
    assertThat(StorageReplicas.render(3, Optional.empty(), List.of())).isEmpty();
    assertThat(StorageReplicas.render(5, Optional.of(3), List.of(pod(0, false)))).isEmpty();
    assertThat(StorageReplicas.render(3, Optional.of(3), List.of(pod(2, false)))).isEmpty();
  }

  @Test
  void aScaleDownKeepsTheHighestPodUntilItIsDrainedThenDropsOne() {
    List<PodView> four = List.of(pod(0, false), pod(1, false), pod(2, false), pod(3, false));
    assertThat(StorageReplicas.render(2, Optional.of(4), four)).contains(4);
    List<PodView> topDrained = List.of(pod(0, false), pod(1, false), pod(2, false), pod(3, true));
    assertThat(StorageReplicas.render(2, Optional.of(4), topDrained)).contains(3);
    // the top pod is gone: the next one waits for its own drain
    assertThat(StorageReplicas.render(2, Optional.of(3), topDrained.subList(0, 3))).contains(3);
    assertThat(StorageReplicas.render(2, Optional.of(3), List.of(pod(0, false), pod(1, false))))
        .contains(2);
  }
}
