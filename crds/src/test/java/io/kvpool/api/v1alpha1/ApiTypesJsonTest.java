package io.kvpool.api.v1alpha1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The JSON the Java types write: what the operator sends in patches must match the CRD's spelling.
 */
class ApiTypesJsonTest {

  private final KubernetesSerialization serialization = new KubernetesSerialization();

  @Test
  void enumsUseTheCrdSpelling() {
    StorageSpec storage = new StorageSpec();
    storage.setHugePages(HugePages.EXPLICIT);
    TransferEngineSpec engine = new TransferEngineSpec();
    engine.setProtocol(TransferProtocol.ASCEND);
    UpgradeSpec upgrade = new UpgradeSpec();
    upgrade.setPaused(true);
    upgrade.setOnFailure(UpgradeFailurePolicy.Rollback);

    assertThat(serialization.asJson(storage)).isEqualTo("{\"hugePages\":\"explicit\"}");
    assertThat(serialization.asJson(engine)).isEqualTo("{\"protocol\":\"ascend\"}");
    assertThat(serialization.asJson(upgrade))
        .isEqualTo("{\"paused\":true,\"onFailure\":\"Rollback\"}");
    assertThat(
            serialization.unmarshal("{\"hugePages\":\"none\"}", StorageSpec.class).getHugePages())
        .isEqualTo(HugePages.NONE);
  }

  @Test
  void unsetFieldsAreLeftOutSoTheServerDefaultsThem() {
    // A null written as "field": null would be a value in a server-side-apply patch, not an
    // absence.
    assertThat(serialization.asJson(new KvCachePoolSpec())).isEqualTo("{}");
    assertThat(serialization.asJson(new KvCachePoolStatus())).isEqualTo("{}");
    assertThat(serialization.asJson(new TransferEngineSpec())).isEqualTo("{}");
  }

  @Test
  void ascendDefaultMountsAreTheDriverPathsReadOnly() {
    List<DriverMount> mounts = DriverMount.ascendDefaults();

    assertThat(mounts)
        .extracting(DriverMount::getHostPath)
        .containsExactly(
            "/usr/local/Ascend/driver",
            "/usr/local/dcmi",
            "/usr/local/bin/npu-smi",
            "/etc/ascend_install.info",
            "/etc/hccn.conf");
    assertThat(mounts)
        .allSatisfy(
            mount -> {
              assertThat(mount.getMountPath()).isEqualTo(mount.getHostPath());
              assertThat(mount.getReadOnly()).isTrue();
              assertThat(mount.getName()).matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$");
            });
    assertThat(mounts).extracting(DriverMount::getName).doesNotHaveDuplicates();
  }

  @Test
  void statusRoundTripsThroughJson() {
    KvCachePoolStatus status = new KvCachePoolStatus();
    status.setPhase(PoolPhase.Upgrading);
    status.setMasters("3/3");
    status.setViewNumber(7L);
    UpgradeStatus upgrade = new UpgradeStatus();
    upgrade.setFrom("1.0.0");
    upgrade.setTo("1.1.0");
    upgrade.setPhase(RolloutPhase.StorageNodes);
    upgrade.setUpdated(1);
    upgrade.setTotal(7);
    upgrade.setBytesMoved(1L << 33);
    RolloutStep step = new RolloutStep();
    step.setPod("p-storage-2");
    step.setAction("WarmRestart");
    upgrade.setStep(step);
    status.setUpgrade(upgrade);

    String json = serialization.asJson(status);

    assertThat(serialization.unmarshal(json, KvCachePoolStatus.class)).isEqualTo(status);
    assertThat(serialization.unmarshal(json, Map.class)).containsEntry("phase", "Upgrading");
    assertThat(json).contains("\"phase\":\"StorageNodes\"");
  }
}
