package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MasterResourcesTest {

  private static ContainerSizing sizing(ComputeResources resources) {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getMaster().setResources(resources);
    return MasterResources.of(DataPlaneSettings.of(pool));
  }

  @Test
  void withoutResourcesAMasterGetsOneGibibyteAndAQuarterCpuAndHalfOfItAsHeap() {
    ContainerSizing sizing = sizing(null);

    assertThat(sizing.resources().getRequests())
        .containsOnly(
            Map.entry("memory", new Quantity("1Gi")), Map.entry("cpu", new Quantity("250m")));
    assertThat(sizing.resources().getLimits())
        .containsOnly(Map.entry("memory", new Quantity("1Gi")));
    assertThat(sizing.jvm()).isEqualTo(new JvmMemory(512, 256));
    assertThat(sizing.jvm().flags()).containsExactly("-Xmx512m", "-XX:MaxDirectMemorySize=256m");
  }

  @Test
  void theHeapFollowsTheMemoryLimit() {
    ContainerSizing sizing =
        sizing(
            ComputeResources.of(
                Map.of("memory", new Quantity("2Gi")),
                Map.of("memory", new Quantity("4Gi"), "cpu", new Quantity("2"))));

    assertThat(sizing.jvm()).isEqualTo(new JvmMemory(2048, 1024));
    assertThat(sizing.resources().getRequests())
        .doesNotContainKey("cpu")
        .containsEntry("memory", new Quantity("2Gi"));
  }

  @Test
  void aMemoryRequestAloneSizesTheHeapAndGetsNoLimitAdded() {
    ContainerSizing sizing =
        sizing(ComputeResources.of(Map.of("memory", new Quantity("3Gi")), null));

    assertThat(sizing.jvm()).isEqualTo(new JvmMemory(1536, 768));
    assertThat(sizing.resources().getLimits()).doesNotContainKey("memory");
    assertThat(sizing.resources().getRequests()).containsEntry("cpu", new Quantity("250m"));
  }
}
