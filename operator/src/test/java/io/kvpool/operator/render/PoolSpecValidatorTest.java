package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.ComputeResources;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.api.v1alpha1.TransferEngine;
import io.kvpool.api.v1alpha1.TransferProtocol;
import io.kvpool.operator.TestPools;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PoolSpecValidatorTest {

  @Test
  void aPlainPoolIsValid() {
    assertThat(
            PoolSpecValidator.validate(
                TestPools.pool("ns", "p"), Optional.empty(), Optional.empty()))
        .isEmpty();
  }

  @Test
  void aMissingTransferEngineIsReportedWithWhatToDo() {
    KvCachePool pool = TestPools.withEngine(TestPools.pool("ns", "p"), "fast");

    List<String> problems = PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty());

    assertThat(problems)
        .singleElement()
        .asString()
        .contains("TransferEngine 'fast' does not exist in namespace 'ns'")
        .contains("create it");
  }

  @Test
  void anEngineWhoseProtocolNeedsDevicesButDeclaresNoneIsRefused() {
    KvCachePool pool = TestPools.withEngine(TestPools.pool("ns", "p"), "npu");
    TransferEngine engine = TestPools.tcpEngine("ns", "npu");
    engine.getSpec().setProtocol(TransferProtocol.ASCEND);

    assertThat(PoolSpecValidator.validate(pool, Optional.of(engine), Optional.empty()))
        .singleElement()
        .asString()
        .contains("protocol ascend")
        .contains("spec.devices");
  }

  @Test
  void segmentsBelowTheMinimumAreRefused() {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity("64Mi"));
    pool.getSpec().getStorage().setSegments(8);

    assertThat(PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .contains("8Mi per segment")
        .contains("minimum segment of 16Mi");
  }

  @Test
  void anImageChangeWithoutAVersionChangeIsRefused() {
    KvCachePool running = TestPools.pool("ns", "p");
    StatefulSet live = StatefulSets.master(running);
    KvCachePool changed = TestPools.pool("ns", "p");
    changed.getSpec().setImage("evil/data-plane:0.1.0");

    assertThat(PoolSpecValidator.validate(changed, Optional.empty(), Optional.of(live)))
        .singleElement()
        .asString()
        .contains("spec.image changed from kvpool/data-plane:0.1.0 to evil/data-plane:0.1.0")
        .contains("spec.version stayed 0.1.0");
  }

  /**
   * What the API server admitted under an older schema must become InvalidSpec, never an exception.
   */
  @ParameterizedTest
  @ValueSource(strings = {"1m", "1500m", "100Ei"})
  void quantitiesThatAreNoByteCountAreInvalidNotACrash(String memory) {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().getStorage().setMemoryPerNode(new Quantity(memory));

    assertThat(PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("spec.storage.memoryPerNode '" + memory + "'")
        .contains("whole number of bytes");
  }

  @Test
  void userMemoryQuantitiesAreCheckedToo() {
    KvCachePool storage = TestPools.pool("ns", "p");
    storage
        .getSpec()
        .getStorage()
        .setResources(ComputeResources.of(null, Map.of("memory", new Quantity("1500m"))));
    KvCachePool master = TestPools.defaultedPool("ns", "p");
    master
        .getSpec()
        .getMaster()
        .setResources(ComputeResources.of(Map.of("memory", new Quantity("128Mi")), null));

    assertThat(PoolSpecValidator.validate(storage, Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("spec.storage.resources.limits.memory '1500m'");
    assertThat(PoolSpecValidator.validate(master, Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("spec.master.resources.requests.memory (128Mi) is below 256Mi");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "0s|10s|spec.leaseTtl (0s) must be between 1s and 10m",
        "5s|0s|spec.nodeTtl (0s) must be between 3s and 10m",
        "30s|10s|spec.leaseTtl (30s) exceeds spec.nodeTtl (10s)",
        "5 s|10s|spec.leaseTtl '5 s' is not a duration"
      })
  void durationsOutOfBoundsOrInTheWrongOrderAreInvalid(String lease, String node, String expected) {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().setLeaseTtl(lease);
    pool.getSpec().setNodeTtl(node);

    assertThat(PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith(expected);
  }

  @Test
  void aStoragePortEqualToTheTransferPortIsInvalid() {
    KvCachePool pool = TestPools.withEngine(TestPools.defaultedPool("ns", "p"), "tcp");
    pool.getSpec().getStorage().setPort(50060);
    KvCachePool admin = TestPools.withEngine(TestPools.defaultedPool("ns", "p"), "tcp");
    admin.getSpec().getStorage().setAdminPort(50060);
    TransferEngine engine = TestPools.tcpEngine("ns", "tcp");

    assertThat(PoolSpecValidator.validate(pool, Optional.of(engine), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("spec.storage.port (50060) equals spec.port of TransferEngine 'tcp'");
    assertThat(PoolSpecValidator.validate(admin, Optional.of(engine), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("spec.storage.adminPort (50060) equals spec.port of TransferEngine 'tcp'");
  }

  @Test
  void aTcpEngineWithDevicesIsInvalid() {
    KvCachePool pool = TestPools.withEngine(TestPools.pool("ns", "p"), "tcp");
    TransferEngine engine = TestPools.ascendEngine("ns", "tcp", "huawei.com/Ascend910", 1);
    engine.getSpec().setProtocol(TransferProtocol.TCP);

    assertThat(PoolSpecValidator.validate(pool, Optional.of(engine), Optional.empty()))
        .singleElement()
        .asString()
        .contains("uses protocol tcp but declares spec.devices");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"a234567890123456789012345678901234567890abcde", "my.pool", "1pool", "pool-"})
  void namesThatCannotNameTheChildObjectsAreInvalid(String name) {
    assertThat(
            PoolSpecValidator.validate(
                TestPools.pool("ns", name), Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("metadata.name '" + name + "' cannot name the pool's objects");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "1.2.3+build.5",
        "1.2.3-rc-",
        "v1.2.3",
        "1.2.3-a23456789012345678901234567890123456789012345678901234567890"
      })
  void versionsThatCannotBeALabelValueAreInvalid(String version) {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().setVersion(version);

    assertThat(PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("spec.version '" + version + "'");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"kvpool/data plane:1.0", " kvpool/data-plane:1.0", "Kvpool/Data-Plane:1.0"})
  void imageReferencesWithSpacesOrCapitalsAreInvalid(String image) {
    KvCachePool pool = TestPools.pool("ns", "p");
    pool.getSpec().setImage(image);

    assertThat(PoolSpecValidator.validate(pool, Optional.empty(), Optional.empty()))
        .singleElement()
        .asString()
        .startsWith("spec.image '" + image + "' is not an image reference");
  }

  @Test
  void anImageChangeWithAVersionChangeIsAllowed() {
    KvCachePool running = TestPools.pool("ns", "p");
    StatefulSet live = StatefulSets.master(running);
    KvCachePool changed = TestPools.pool("ns", "p");
    changed.getSpec().setVersion("0.1.1");
    changed.getSpec().setImage("mirror/data-plane:0.1.1");

    assertThat(PoolSpecValidator.validate(changed, Optional.empty(), Optional.of(live))).isEmpty();
  }
}
