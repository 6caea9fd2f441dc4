package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.operator.common.PoolLabels.Component;
import org.junit.jupiter.api.Test;

class RenderedFieldsTest {

  @Test
  void podTemplateFieldsAreReportedAsThePoolFieldsTheyComeFrom() {
    assertThat(RenderedFields.poolField(Component.STORAGE, "spec.template.spec.nodeSelector"))
        .isEqualTo("spec.scheduling.nodeSelector");
    assertThat(
            RenderedFields.poolField(
                Component.MASTER,
                "spec.template.spec.affinity.nodeAffinity"
                    + ".requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key"))
        .isEqualTo(
            "spec.master.scheduling.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                + ".nodeSelectorTerms[0].matchExpressions[0].key");
    assertThat(
            RenderedFields.poolField(
                Component.STORAGE, "spec.template.spec.tolerations[0].operator"))
        .isEqualTo("spec.scheduling.tolerations[0].operator");
    assertThat(
            RenderedFields.poolField(
                Component.MASTER, "spec.template.spec.containers[0].resources.requests"))
        .isEqualTo("spec.master.resources.requests");
    assertThat(RenderedFields.poolField(Component.STORAGE, "spec.template.spec.volumes[3].name"))
        .isEqualTo(
            "the TransferEngine's spec.devices.driverMounts (spec.template.spec.volumes[3].name)");
    assertThat(RenderedFields.poolField(Component.STORAGE, "spec.replicas"))
        .isEqualTo("the storage StatefulSet rendered from the spec (spec.replicas)");
  }
}
