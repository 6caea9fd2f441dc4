package io.kvpool.operator.transferengine;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.operator.TestPools;
import org.junit.jupiter.api.Test;

class TransportSettingsTest {

  @Test
  void unsetFieldsTakeTheDocumentedDefaults() {
    TransferEngine engine = TestPools.tcpEngine("ns", "e");
    engine.getSpec().setPort(null);

    TransportSettings settings = TransportSettings.of(engine);

    assertThat(settings.protocol()).isEqualTo(TransferProtocol.TCP);
    assertThat(settings.port()).isEqualTo(50060);
    assertThat(settings.bufferPoolBytes()).isEqualTo(256L << 20);
    assertThat(settings.buffers()).isEqualTo(8);
    assertThat(settings.hostNetwork()).isFalse();
    assertThat(settings.devices()).isEmpty();
  }

  @Test
  void ascendDevicesGetTheDriverDefaultsAndVisibilityVariable() {
    TransportSettings settings =
        TransportSettings.of(TestPools.ascendEngine("ns", "e", "huawei.com/ascend-1980", 4));

    TransportSettings.Devices devices = settings.devices().orElseThrow();
    assertThat(devices.resourceName()).isEqualTo("huawei.com/ascend-1980");
    assertThat(devices.count()).isEqualTo(4);
    assertThat(devices.visibleDevicesEnv()).isEqualTo("ASCEND_VISIBLE_DEVICES");
    assertThat(devices.driverMounts())
        .extracting(m -> m.getHostPath())
        .containsExactly(
            "/usr/local/Ascend/driver",
            "/usr/local/dcmi",
            "/usr/local/bin/npu-smi",
            "/etc/ascend_install.info",
            "/etc/hccn.conf");
    assertThat(TransportSettings.needsDevices(settings.protocol())).isTrue();
  }
}
