package io.kvpool.operator.transferengine;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.BufferPoolSpec;
import io.kvpool.api.v1alpha1.DeviceSpec;
import io.kvpool.api.v1alpha1.DriverMount;
import io.kvpool.api.v1alpha1.TransferEngineSpec;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.operator.transferengine.EnginePreflight.Finding;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each preflight rule alone, passing and failing. */
class EnginePreflightTest {
  private static final long MIB = 1L << 20;

  private static TransferEngineSpec ascend() {
    TransferEngineSpec spec = new TransferEngineSpec();
    spec.setProtocol(TransferProtocol.ASCEND);
    DeviceSpec devices = new DeviceSpec();
    devices.setResourceName("huawei.com/Ascend910");
    devices.setCount(1);
    spec.setDevices(devices);
    return spec;
  }

  private static List<String> reasons(List<Finding> findings) {
    return findings.stream().map(Finding::reason).toList();
  }

  @Test
  void aPlainTcpEnginePassesEveryRule() {
    assertThat(EnginePreflight.engine(new TransferEngineSpec(), false)).isEmpty();
    assertThat(
            EnginePreflight.forPool(new TransferEngineSpec(), 100 * MIB + 1, Duration.ofSeconds(5)))
        .isEmpty();
    assertThat(EnginePreflight.configValid(List.of()).status()).isTrue();
  }

  @Test
  void aDeviceResourceNoNodeAdvertisesIsReportedWithoutBlocking() {
    List<Finding> findings = EnginePreflight.engine(ascend(), false);
    assertThat(reasons(findings)).containsExactly("DeviceResourceNotAdvertised");
    assertThat(findings.get(0).blocking()).isFalse();
    assertThat(findings.get(0).message()).contains("huawei.com/Ascend910");
    assertThat(EnginePreflight.engine(ascend(), true)).isEmpty();
  }

  @Test
  void customDriverMountsMustKeepTheDriverAndHccnConf() {
    TransferEngineSpec spec = ascend();
    spec.getDevices()
        .setDriverMounts(
            List.of(
                DriverMount.of("driver", "/usr/local/Ascend/driver"),
                DriverMount.of("smi", "/usr/local/bin/npu-smi")));
    List<Finding> findings = EnginePreflight.engine(spec, true);
    assertThat(reasons(findings)).containsExactly("DriverMountMissing");
    assertThat(findings.get(0).blocking()).isTrue();
    assertThat(findings.get(0).message())
        .contains("/etc/hccn.conf")
        .doesNotContain("lacks /usr/local/Ascend/driver");
    spec.getDevices().setDriverMounts(DriverMount.ascendDefaults());
    assertThat(EnginePreflight.engine(spec, true)).isEmpty();
    spec.getDevices().setDriverMounts(List.of());
    assertThat(EnginePreflight.engine(spec, true)).as("empty: the defaults are mounted").isEmpty();
  }

  @Test
  void ascendBuffersMustBeWhole2MiPages() {
    TransferEngineSpec spec = ascend();
    BufferPoolSpec buffers = new BufferPoolSpec();
    buffers.setSize(new Quantity("256Mi"));
    buffers.setBuffers(8);
    spec.setBufferPool(buffers);
    assertThat(EnginePreflight.engine(spec, true)).isEmpty();
    buffers.setBuffers(3);
    assertThat(reasons(EnginePreflight.engine(spec, true))).containsExactly("BufferMisaligned");
    buffers.setSize(new Quantity("12Mi"));
    buffers.setBuffers(8); // 1.5Mi each
    assertThat(reasons(EnginePreflight.engine(spec, true))).containsExactly("BufferMisaligned");
    spec.setProtocol(TransferProtocol.RDMA);
    spec.setDevices(null);
    assertThat(EnginePreflight.engine(spec, true))
        .as("only Ascend registers in 2Mi pages")
        .isEmpty();
  }

  @Test
  void ascendSegmentsMustBeWhole2MiPages() {
    assertThat(EnginePreflight.forPool(ascend(), 64 * MIB, Duration.ofSeconds(5))).isEmpty();
    List<Finding> findings = EnginePreflight.forPool(ascend(), 65 * MIB, Duration.ofSeconds(5));
    assertThat(reasons(findings)).containsExactly("SegmentMisaligned");
    assertThat(findings.get(0).message()).contains(String.valueOf(65 * MIB));
  }

  @Test
  void rdmaRetryMustEndBeforeTheTransferTimeout() {
    TransferEngineSpec spec = new TransferEngineSpec();
    spec.setProtocol(TransferProtocol.RDMA);
    spec.setRdmaRetryTimeout("500ms");
    spec.setTransferTimeout("2s");
    assertThat(EnginePreflight.engine(spec, true)).isEmpty();
    spec.setRdmaRetryTimeout("2s");
    List<Finding> findings = EnginePreflight.engine(spec, true);
    assertThat(reasons(findings)).containsExactly("TimeoutsMisordered");
    assertThat(findings.get(0).message())
        .contains("rdmaRetryTimeout 2s")
        .contains("transferTimeout 2s");
    spec.setTransferTimeout(null);
    assertThat(EnginePreflight.engine(spec, true))
        .as("one of the two unset: nothing to order")
        .isEmpty();
  }

  @Test
  void theTransferTimeoutMustEndBeforeTheReadLease() {
    TransferEngineSpec spec = new TransferEngineSpec();
    spec.setTransferTimeout("2s");
    assertThat(EnginePreflight.forPool(spec, 64 * MIB, Duration.ofSeconds(5))).isEmpty();
    List<Finding> findings = EnginePreflight.forPool(spec, 64 * MIB, Duration.ofSeconds(2));
    assertThat(reasons(findings)).containsExactly("TimeoutsMisordered");
    assertThat(findings.get(0).message()).contains("spec.leaseTtl 2s");
  }

  @Test
  void configValidNamesTheFirstReasonAndListsAll() {
    EnginePreflight.ConditionVerdict v =
        EnginePreflight.configValid(
            List.of(
                new Finding("SegmentMisaligned", "a", true),
                new Finding("TimeoutsMisordered", "b", true)));
    assertThat(v.status()).isFalse();
    assertThat(v.reason()).isEqualTo("SegmentMisaligned");
    assertThat(v.message()).isEqualTo("SegmentMisaligned: a; TimeoutsMisordered: b");
  }

  @Test
  void everyProtocolMovesBytesOverTcpAndSaysSo() {
    assertThat(EnginePreflight.DATA_TRANSPORT).isEqualTo("tcp");
    assertThat(EnginePreflight.transport(TransferProtocol.TCP).status()).isTrue();
    EnginePreflight.ConditionVerdict rdma = EnginePreflight.transport(TransferProtocol.RDMA);
    assertThat(rdma.status()).isFalse();
    assertThat(rdma.reason()).isEqualTo("RdmaNotImplemented");
    assertThat(rdma.message()).contains("TCP");
    EnginePreflight.ConditionVerdict ascend = EnginePreflight.transport(TransferProtocol.ASCEND);
    assertThat(ascend.status()).isFalse();
    assertThat(ascend.reason()).isEqualTo("AscendTransportNotImplemented");
  }
}
