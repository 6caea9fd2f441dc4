package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferEngineStatus;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.EnginePreflight.Finding;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolPreflightTest {
  private static KvCachePool pool(String memoryPerNode) {
    KvCachePool pool = TestPools.withEngine(TestPools.defaultedPool("ns", "p"), "npu");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity(memoryPerNode));
    return pool;
  }

  private static TransferEngine engine(Boolean advertised) {
    TransferEngine engine = TestPools.ascendEngine("ns", "npu", "huawei.com/Ascend910", 1);
    if (advertised != null) {
      TransferEngineStatus status = new TransferEngineStatus();
      status.setDeviceResourceAdvertised(advertised);
      engine.setStatus(status);
    }
    return engine;
  }

  @Test
  void aPoolWithoutAnEngineHasNoFindings() {
    assertThat(PoolPreflight.findings(TestPools.defaultedPool("ns", "p"), Optional.empty()))
        .isEmpty();
  }

  @Test
  void theEnginesRulesAndThePoolsAreChecked() {
    List<Finding> findings = PoolPreflight.findings(pool("99Mi"), Optional.of(engine(false)));
    assertThat(findings)
        .extracting(Finding::reason)
        .containsExactly("DeviceResourceNotAdvertised", "SegmentMisaligned");
    List<String> problems = PoolPreflight.problems(findings, Optional.of(engine(false)));
    assertThat(problems)
        .as("only blocking findings are spec problems")
        .singleElement()
        .asString()
        .startsWith(
            "TransferEngine npu fails preflight rule SegmentMisaligned: segments of 103809024 bytes");
  }

  @Test
  void anEngineNotYetObservedIsNotReportedUnadvertised() {
    assertThat(PoolPreflight.findings(pool("100Mi"), Optional.of(engine(null)))).isEmpty();
    assertThat(PoolPreflight.findings(pool("100Mi"), Optional.of(engine(true)))).isEmpty();
  }
}
