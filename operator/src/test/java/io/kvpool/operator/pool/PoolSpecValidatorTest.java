package io.kvpool.operator.pool;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.pool.dependents.MasterStatefulSetDependent;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PoolSpecValidatorTest {

  @Test
  void aPlainPoolIsValid() {
    assertThat(PoolSpecValidator.validate(TestPools.pool("ns", "p"), Optional.empty(), Optional.empty())).isEmpty();
  }

  @Test
  void aMissingTransferEngineIsReportedWithWhatToDo() {
    KvCachePool pool = TestPools.withEngine(TestPools.pool("ns", "p"), "fast");

    List<String> problems = PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty());

    assertThat(problems).singleElement().asString()
        .contains("TransferEngine 'fast' does not exist in namespace 'ns'").contains("create it");
  }

  @Test
  void anEngineWhoseProtocolNeedsDevicesButDeclaresNoneIsRefused() {
    KvCachePool pool = TestPools.withEngine(TestPools.pool("ns", "p"), "npu");
    TransferEngine engine = TestPools.tcpEngine("ns", "npu");
    engine.getSpec().setProtocol(TransferProtocol.ASCEND);

    assertThat(PoolSpecValidator.validate(pool, Optional.of(engine), Optional.empty())).singleElement().asString()
        .contains("protocol ascend").contains("spec.devices");
  }

  @Test
  void segmentsBelowTheMinimumAreRefused() {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("64Mi"));
    pool.getSpec().getStorage().setSegments(8);

    assertThat(PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty())).singleElement().asString()
        .contains("8Mi per segment").contains("minimum segment of 16Mi");
  }

  @Test
  void anImageChangeWithoutAVersionChangeIsRefused() {
    KvCachePool running = TestPools.pool("ns", "p");
    StatefulSet live = MasterStatefulSetDependent.desired(running);
    KvCachePool changed = TestPools.pool("ns", "p");
    changed.getSpec().setImage("evil/data-plane:0.1.0");

    assertThat(PoolSpecValidator.validate(changed, Optional.empty(), Optional.of(live))).singleElement().asString()
        .contains("spec.image changed from kvpool/data-plane:0.1.0 to evil/data-plane:0.1.0")
        .contains("spec.version stayed 0.1.0");
  }

  @Test
  void anImageChangeWithAVersionChangeIsAllowed() {
    KvCachePool running = TestPools.pool("ns", "p");
    StatefulSet live = MasterStatefulSetDependent.desired(running);
    KvCachePool changed = TestPools.pool("ns", "p");
    changed.getSpec().setVersion("0.1.1");
    changed.getSpec().setImage("mirror/data-plane:0.1.1");

    assertThat(PoolSpecValidator.validate(changed, Optional.empty(), Optional.of(live))).isEmpty();
  }
}
