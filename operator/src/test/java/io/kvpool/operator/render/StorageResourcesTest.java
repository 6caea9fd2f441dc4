package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StorageResourcesTest {

  private static ContainerSizing sizing(KvCachePool pool) {
    return StorageResources.of(DataPlaneSettings.of(pool), TransportSettings.PLAIN_TCP);
  }

  @Test
  void segmentsInOrdinaryMemoryGetTheJvmHeadroomOnTop() {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("4Gi"));

    ContainerSizing sizing = sizing(pool);

    assertThat(sizing.resources().getLimits())
        .containsEntry("memory", new Quantity("4608Mi"))
        .doesNotContainKey("hugepages-2Mi");
    assertThat(sizing.resources().getRequests())
        .containsEntry("memory", new Quantity("4608Mi"))
        .as("a cpu request without a limit when the user set none")
        .containsEntry("cpu", new Quantity("500m"));
    assertThat(sizing.resources().getLimits()).doesNotContainKey("cpu");
    assertThat(sizing.jvm()).isEqualTo(new JvmMemory(256, 128));
  }

  /**
   * 32Gi of huge pages for a 32Gi node, and ordinary memory only for the JVM: the segments are
   * reserved once.
   */
  @Test
  void explicitHugePagesAreReservedOnceAndRoundUpToWholePages() {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("32Gi"));
    pool.getSpec().getStorage().setHugePages(HugePages.EXPLICIT);
    KvCachePool odd = TestPools.pool("ns", "p");
    odd.getSpec().getStorage().setMemoryPerNode(new Quantity("1001Mi"));
    odd.getSpec().getStorage().setHugePages(HugePages.EXPLICIT);

    ContainerSizing sizing = sizing(pool);

    assertThat(sizing.resources().getLimits())
        .containsEntry("hugepages-2Mi", new Quantity("32Gi"))
        .containsEntry("memory", new Quantity("512Mi"));
    assertThat(sizing.resources().getRequests())
        .containsEntry("hugepages-2Mi", new Quantity("32Gi"))
        .containsEntry("memory", new Quantity("512Mi"));
    assertThat(sizing.jvm()).isEqualTo(new JvmMemory(256, 128));
    assertThat(sizing(odd).resources().getLimits())
        .containsEntry("hugepages-2Mi", new Quantity("1002Mi"));
  }

  @Test
  void aLargerUserLimitIsKeptAndGoesToTheJvmAndUserCpuPassesThrough() {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("1Gi"));
    pool.getSpec()
        .getStorage()
        .setResources(
            ComputeResources.of(
                Map.of("cpu", new Quantity("1")), Map.of("memory", new Quantity("3Gi"))));

    ContainerSizing sizing = sizing(pool);

    assertThat(sizing.resources().getLimits()).containsEntry("memory", new Quantity("3Gi"));
    assertThat(sizing.resources().getRequests())
        .containsEntry("memory", new Quantity("3Gi"))
        .containsEntry("cpu", new Quantity("1"));
    assertThat(sizing.jvm()).as("3Gi less the 1Gi of segments").isEqualTo(new JvmMemory(1024, 512));
  }
}
