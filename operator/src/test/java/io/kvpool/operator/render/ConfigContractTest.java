package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.master.MasterMain;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import io.kvpool.process.ProcessConfig;
import io.kvpool.storage.StorageNodeMain;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The operator ↔ data-plane configuration contract, checked against the data-plane mains
 * themselves: every key the operator writes into the pool ConfigMap and every setting in a
 * container's environment is one the main of that container reads (an option's key), so nothing the
 * operator configures is silently ignored. That the processes then run from exactly this
 * configuration is shown by PoolInPodsTest, which starts the rendered pods.
 */
class ConfigContractTest {
  private static final Set<String> POD_IDENTITY = Set.of("POD_NAME", "POD_NAMESPACE");

  @Test
  void everyConfigMapKeyIsReadByADataPlaneMain() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    Set<String> known = new HashSet<>(keys(new MasterMain()));
    known.addAll(keys(new StorageNodeMain()));

    assertThat(ConfigMaps.pool(pool).getData().keySet())
        .allSatisfy(key -> assertThat(known).as("a main reading %s", key).contains(key));
    KvCachePool rampOff = TestPools.defaultedPool("ns", "p");
    rampOff.getSpec().getMaster().setPlacementRamp(false);
    assertThat(ConfigMaps.pool(rampOff).getData().keySet())
        .allSatisfy(key -> assertThat(known).as("a main reading %s", key).contains(key));
  }

  @Test
  void everyContainerSettingIsReadByItsMain() {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    TransportSettings ascend =
        TransportSettings.of(TestPools.ascendEngine("ns", "npu", "huawei.com/Ascend910", 2));

    assertReads(StatefulSets.master(pool), keys(new MasterMain()));
    assertReads(
        StatefulSets.storage(pool, TransportSettings.PLAIN_TCP), keys(new StorageNodeMain()));
    assertReads(StatefulSets.storage(pool, ascend), keys(new StorageNodeMain()));
    KvCachePool withDisk = TestPools.defaultedPool("ns", "p");
    io.kvpool.api.v1alpha1.DiskTierSpec disk = new io.kvpool.api.v1alpha1.DiskTierSpec();
    disk.setSize(new io.fabric8.kubernetes.api.model.Quantity("1Gi"));
    disk.setFileSize(new io.fabric8.kubernetes.api.model.Quantity("16Mi"));
    withDisk.getSpec().getStorage().setDisk(disk);
    assertReads(
        StatefulSets.storage(withDisk, TransportSettings.PLAIN_TCP), keys(new StorageNodeMain()));
  }

  private static void assertReads(StatefulSet sts, Set<String> known) {
    Container container = sts.getSpec().getTemplate().getSpec().getContainers().get(0);
    List<String> settings =
        container.getEnv().stream()
            .map(EnvVar::getName)
            .filter(name -> name.startsWith("KVPOOL_") || POD_IDENTITY.contains(name))
            .toList();
    assertThat(settings)
        .isNotEmpty()
        .allSatisfy(
            name ->
                assertThat(known)
                    .as("%s of %s read by its main", name, sts.getMetadata().getName())
                    .contains(name));
  }

  /** The keys a main reads: its options' keys, and the config folder itself. */
  private static Set<String> keys(Object main) {
    Set<String> keys = new HashSet<>();
    keys.add(ProcessConfig.CONFIG_DIR_ENV);
    for (OptionSpec option : new CommandLine(main).getCommandSpec().options()) {
      if (option.descriptionKey() != null && !option.descriptionKey().isEmpty()) {
        keys.add(option.descriptionKey());
      }
    }
    return keys;
  }
}
