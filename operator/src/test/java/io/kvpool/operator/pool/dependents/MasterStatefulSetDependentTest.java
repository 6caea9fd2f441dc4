package io.kvpool.operator.pool.dependents;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.operator.TestPools;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MasterStatefulSetDependentTest {

  @Test
  void runsTheMasterMainWithTheSpecFlagsProbesAndLabels() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getMaster().setReplicas(3);
    pool.getSpec().getMaster().setResources(new ResourceRequirementsBuilder()
        .addToRequests("cpu", new Quantity("500m")).build());

    StatefulSet sts = MasterStatefulSetDependent.desired(pool);

    assertThat(sts.getMetadata().getName()).isEqualTo("p-master");
    assertThat(sts.getSpec().getReplicas()).isEqualTo(3);
    assertThat(sts.getSpec().getServiceName()).isEqualTo("p-master-peers");
    assertThat(sts.getSpec().getSelector().getMatchLabels()).containsOnly(
        Map.entry("app.kubernetes.io/name", "kvpool"), Map.entry("app.kubernetes.io/instance", "p"),
        Map.entry("app.kubernetes.io/component", "master"));
    Map<String, String> podLabels = sts.getSpec().getTemplate().getMetadata().getLabels();
    assertThat(podLabels).containsEntry("app.kubernetes.io/version", "0.1.0")
        .containsEntry("kvpool.io/pool", "p").containsEntry("app.kubernetes.io/component", "master");
    assertThat(sts.getSpec().getTemplate().getMetadata().getAnnotations()).containsEntry("kvpool.io/release", "0.1.0");
    assertThat(sts.getMetadata().getAnnotations()).containsEntry("kvpool.io/image", "kvpool/data-plane:0.1.0");
    assertThat(sts.getSpec().getTemplate().getSpec().getServiceAccountName()).isEqualTo("p-master");

    Container master = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(master.getImage()).isEqualTo("kvpool/data-plane:0.1.0");
    assertThat(String.join(" ", master.getCommand())).contains("io.kvpool.master.MasterMain --pool-id p")
        .contains("--port 50051").contains("--admin-port 8080").contains("--node-ttl 10s")
        .contains("--lease-ttl 5s").contains("--high-watermark 0.9").contains("--evict-ratio 0.1");
    assertThat(master.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/ready");
    assertThat(master.getReadinessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("admin");
    assertThat(master.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/health");
    assertThat(master.getPorts()).anySatisfy(p -> {
      assertThat(p.getName()).isEqualTo("admin");
      assertThat(p.getContainerPort()).isEqualTo(8080);
    });
    assertThat(master.getEnv()).extracting(e -> e.getName()).contains("POD_NAME", "POD_NAMESPACE");
    assertThat(master.getResources().getRequests()).containsEntry("cpu", new Quantity("500m"));
  }

  @Test
  void appliesTheSchedulingOfTheSpec() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    SchedulingSpec scheduling = new SchedulingSpec();
    scheduling.setNodeSelector(Map.of("pool", "kv"));
    scheduling.setTolerations(List.of(new TolerationBuilder().withKey("npu").withOperator("Exists").build()));
    pool.getSpec().setScheduling(scheduling);

    var podSpec = MasterStatefulSetDependent.desired(pool).getSpec().getTemplate().getSpec();

    assertThat(podSpec.getNodeSelector()).containsEntry("pool", "kv");
    assertThat(podSpec.getTolerations()).extracting(t -> t.getKey()).containsExactly("npu");
  }

  @Test
  void usesTheImageOfTheSpecWhenGiven() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().setImage("registry.local/kvpool:custom");

    StatefulSet sts = MasterStatefulSetDependent.desired(pool);

    assertThat(sts.getSpec().getTemplate().getSpec().getContainers().get(0).getImage())
        .isEqualTo("registry.local/kvpool:custom");
  }
}
