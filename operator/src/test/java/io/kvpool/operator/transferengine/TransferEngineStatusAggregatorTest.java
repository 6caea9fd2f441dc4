package io.kvpool.operator.transferengine;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferEngineStatus;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.common.Conditions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class TransferEngineStatusAggregatorTest {
  private final TransferEngineStatusAggregator aggregator =
      new TransferEngineStatusAggregator(
          Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC));

  @Test
  void tcpNeedsNoDevices() {
    TransferEngine engine = TestPools.tcpEngine("ns", "tcp");

    TransferEngineStatus status =
        aggregator.aggregate(engine, TransportSettings.of(engine), List.of("a", "b"), 0);

    assertThat(status.getPools()).containsExactly("a", "b");
    assertThat(status.getObservedGeneration()).isEqualTo(1);
    assertThat(Conditions.isTrue(status.getConditions(), "Ready")).isTrue();
    assertThat(
            Conditions.find(status.getConditions(), "DevicesAvailable").orElseThrow().getReason())
        .isEqualTo("NoDevicesRequired");
  }

  @Test
  void ascendWithoutAdvertisingNodesIsNotReady() {
    TransferEngine engine = TestPools.ascendEngine("ns", "npu", "huawei.com/Ascend910", 1);

    TransferEngineStatus status =
        aggregator.aggregate(engine, TransportSettings.of(engine), List.of("p"), 0);

    assertThat(status.getDeviceResourceAdvertised()).isFalse();
    assertThat(status.getNodesWithDevice()).isZero();
    var condition = Conditions.find(status.getConditions(), "DevicesAvailable").orElseThrow();
    assertThat(condition.getStatus()).isEqualTo("False");
    assertThat(condition.getMessage())
        .contains("no node advertises huawei.com/Ascend910")
        .contains("pools p");
  }

  @Test
  void ascendWithAnAdvertisingNodeIsReady() {
    TransferEngine engine = TestPools.ascendEngine("ns", "npu", "huawei.com/Ascend910", 1);

    TransferEngineStatus status =
        aggregator.aggregate(engine, TransportSettings.of(engine), List.of(), 2);

    assertThat(status.getDeviceResourceAdvertised()).isTrue();
    assertThat(status.getNodesWithDevice()).isEqualTo(2);
    assertThat(Conditions.isTrue(status.getConditions(), "Ready")).isTrue();
  }
}
