package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.SchedulingSpec;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.PoolLabels.Component;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodPlacementTest {

  private static PodSpec placed(KvCachePool pool, Component component) {
    PodSpec podSpec = new PodSpec();
    PodPlacement.apply(pool, component, podSpec);
    return podSpec;
  }

  private static SchedulingSpec npuNodes() {
    SchedulingSpec scheduling = new SchedulingSpec();
    scheduling.setNodeSelector(Map.of("accelerator", "huawei-Ascend910"));
    scheduling.setTolerations(
        List.of(
            new TolerationBuilder()
                .withKey("huawei.com/Ascend910")
                .withOperator("Exists")
                .withEffect("NoSchedule")
                .build()));
    return scheduling;
  }

  @Test
  void storagePodsSpreadAcrossNodesByDefault() {
    PodSpec storage = placed(TestPools.pool("ns", "p"), Component.STORAGE);

    assertThat(storage.getTopologySpreadConstraints())
        .singleElement()
        .satisfies(
            spread -> {
              assertThat(spread.getTopologyKey()).isEqualTo("kubernetes.io/hostname");
              assertThat(spread.getMaxSkew()).isEqualTo(1);
              assertThat(spread.getWhenUnsatisfiable()).isEqualTo("DoNotSchedule");
              assertThat(spread.getNodeTaintsPolicy()).isEqualTo("Honor");
              assertThat(spread.getLabelSelector().getMatchLabels())
                  .containsEntry("app.kubernetes.io/instance", "p")
                  .containsEntry("app.kubernetes.io/component", "storage");
            });
  }

  @Test
  void theStorageSchedulingBlockDoesNotMoveTheMasters() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().setScheduling(npuNodes());

    PodSpec storage = placed(pool, Component.STORAGE);
    PodSpec master = placed(pool, Component.MASTER);

    assertThat(storage.getNodeSelector()).containsEntry("accelerator", "huawei-Ascend910");
    assertThat(storage.getTolerations()).hasSize(1);
    assertThat(master.getNodeSelector()).isNullOrEmpty();
    assertThat(master.getTolerations()).isNullOrEmpty();
    assertThat(master.getTopologySpreadConstraints())
        .singleElement()
        .satisfies(
            spread ->
                assertThat(spread.getLabelSelector().getMatchLabels())
                    .containsEntry("app.kubernetes.io/component", "master"));
  }

  @Test
  void mastersFollowTheirOwnSchedulingBlockWhenAsked() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getMaster().setScheduling(npuNodes());

    assertThat(placed(pool, Component.MASTER).getNodeSelector())
        .containsEntry("accelerator", "huawei-Ascend910");
    assertThat(placed(pool, Component.STORAGE).getNodeSelector()).isNullOrEmpty();
  }

  @Test
  void spreadConstraintsOfTheSpecReplaceTheDefaultAndAnEmptyListTurnsSpreadingOff() {
    KvCachePool zones = TestPools.pool("ns", "p");
    SchedulingSpec byZone = new SchedulingSpec();
    byZone.setTopologySpreadConstraints(
        List.of(
            new TopologySpreadConstraintBuilder()
                .withMaxSkew(2)
                .withTopologyKey("topology.kubernetes.io/zone")
                .withWhenUnsatisfiable("ScheduleAnyway")
                .build()));
    zones.getSpec().setScheduling(byZone);
    KvCachePool packed = TestPools.pool("ns", "p");
    SchedulingSpec none = new SchedulingSpec();
    none.setTopologySpreadConstraints(List.of());
    packed.getSpec().setScheduling(none);

    assertThat(placed(zones, Component.STORAGE).getTopologySpreadConstraints())
        .singleElement()
        .satisfies(
            spread -> assertThat(spread.getTopologyKey()).isEqualTo("topology.kubernetes.io/zone"));
    assertThat(placed(packed, Component.STORAGE).getTopologySpreadConstraints()).isNullOrEmpty();
  }
}
