package io.kvpool.operator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.kvpool.api.v1alpha1.HugePages;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import org.junit.jupiter.api.Test;

class StorageResourcesTest {

  private static ResourceRequirements resources(KvCachePool pool) {
    return StorageResources.of(DataPlaneSettings.of(pool), TransportSettings.PLAIN_TCP);
  }

  @Test
  void explicitHugePagesRoundUpToWholePages() {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("1001Mi"));
    pool.getSpec().getStorage().setHugePages(HugePages.EXPLICIT);

    ResourceRequirements resources = resources(pool);

    assertThat(resources.getLimits()).containsEntry("hugepages-2Mi", new Quantity("1002Mi"))
        .containsEntry("memory", new Quantity("1513Mi"));
  }

  @Test
  void aLargerUserLimitIsKeptAndUserCpuPassesThrough() {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("1Gi"));
    pool.getSpec().getStorage().setResources(new ResourceRequirementsBuilder()
        .addToLimits("memory", new Quantity("8Gi")).addToRequests("cpu", new Quantity("1")).build());

    ResourceRequirements resources = resources(pool);

    assertThat(resources.getLimits()).containsEntry("memory", new Quantity("8Gi"));
    assertThat(resources.getRequests()).containsEntry("memory", new Quantity("8Gi"))
        .containsEntry("cpu", new Quantity("1"));
  }
}
