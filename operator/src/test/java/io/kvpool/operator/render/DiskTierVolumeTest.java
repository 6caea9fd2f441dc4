package io.kvpool.operator.render;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.DiskEmptyDir;
import io.kvpool.api.v1alpha1.DiskHostPath;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.DiskVolumeClaim;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.TestPools;
import io.kvpool.operator.transferengine.TransportSettings;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@code spec.storage.disk} rendered into the storage StatefulSet, for each kind of volume. */
class DiskTierVolumeTest {

  @Test
  void withoutADiskTierNothingIsRendered() {
    StatefulSet sts = storage(TestPools.defaultedPool("ns", "p"));

    assertThat(sts.getSpec().getTemplate().getSpec().getVolumes())
        .extracting(Volume::getName)
        .doesNotContain(DiskTierVolume.NAME);
    assertThat(env(sts)).doesNotContainKeys("KVPOOL_DISK_SIZE", "KVPOOL_DISK_DIR");
    assertThat(sts.getSpec().getVolumeClaimTemplates()).isNullOrEmpty();
  }

  @Test
  void anEmptyDirOfTheTierSizeByDefault() {
    KvCachePool pool = withDisk(tier("1Gi"));

    StatefulSet sts = storage(pool);

    assertThat(volume(sts).getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("1Gi"));
    assertThat(env(sts))
        .containsEntry("KVPOOL_DISK_SIZE", Long.toString(1L << 30))
        .containsEntry("KVPOOL_DISK_DIR", "/var/lib/kvpool/disk")
        .doesNotContainKey("KVPOOL_DISK_FILE_SIZE");
    assertThat(container(sts).getVolumeMounts())
        .anySatisfy(
            m -> {
              assertThat(m.getName()).isEqualTo(DiskTierVolume.NAME);
              assertThat(m.getMountPath()).isEqualTo("/var/lib/kvpool/disk");
              assertThat(m.getReadOnly()).isNotEqualTo(Boolean.TRUE);
            });
    assertThat(DiskTierCheck.problems(pool)).isEmpty();
  }

  @Test
  void anEmptyDirWithItsOwnLimitAndTheFileSize() {
    DiskTierSpec disk = tier("1Gi");
    disk.setFileSize(new Quantity("32Mi"));
    DiskEmptyDir emptyDir = new DiskEmptyDir();
    emptyDir.setSizeLimit(new Quantity("2Gi"));
    disk.setEmptyDir(emptyDir);

    StatefulSet sts = storage(withDisk(disk));

    assertThat(volume(sts).getEmptyDir().getSizeLimit()).isEqualTo(new Quantity("2Gi"));
    assertThat(env(sts)).containsEntry("KVPOOL_DISK_FILE_SIZE", Long.toString(32L << 20));
  }

  @Test
  void aNodeFolderKeepsEachPoolsTiersApart() {
    DiskTierSpec disk = tier("8Gi");
    DiskHostPath hostPath = new DiskHostPath();
    hostPath.setPath("/mnt/nvme/kvpool");
    disk.setHostPath(hostPath);

    StatefulSet sts = storage(withDisk(disk));

    assertThat(volume(sts).getHostPath().getPath()).isEqualTo("/mnt/nvme/kvpool");
    assertThat(volume(sts).getHostPath().getType()).isEqualTo("DirectoryOrCreate");
    assertThat(env(sts)).containsEntry("KVPOOL_DISK_DIR", "/var/lib/kvpool/disk/ns/p");
  }

  @Test
  void aClaimPerPodFromTheStatefulSetsClaimTemplate() {
    DiskTierSpec disk = tier("20Gi");
    DiskVolumeClaim claim = new DiskVolumeClaim();
    claim.setStorageClassName("fast-ssd");
    disk.setVolumeClaim(claim);

    StatefulSet sts = storage(withDisk(disk));

    assertThat(sts.getSpec().getTemplate().getSpec().getVolumes())
        .extracting(Volume::getName)
        .doesNotContain(DiskTierVolume.NAME);
    assertThat(sts.getSpec().getVolumeClaimTemplates())
        .singleElement()
        .satisfies(
            (PersistentVolumeClaim pvc) -> {
              assertThat(pvc.getMetadata().getName()).isEqualTo(DiskTierVolume.NAME);
              assertThat(pvc.getSpec().getStorageClassName()).isEqualTo("fast-ssd");
              assertThat(pvc.getSpec().getAccessModes()).containsExactly("ReadWriteOnce");
              assertThat(pvc.getSpec().getResources().getRequests())
                  .containsEntry("storage", new Quantity("20Gi"));
            });
    assertThat(container(sts).getVolumeMounts())
        .extracting(m -> m.getName())
        .contains(DiskTierVolume.NAME);
    assertThat(env(sts)).containsEntry("KVPOOL_DISK_SIZE", Long.toString(20L << 30));
  }

  @Test
  void malformedTiersAreReportedNamingTheField() {
    DiskTierSpec unaligned = tier("1Gi");
    unaligned.setFileSize(new Quantity("1000001"));
    DiskTierSpec tooSmallForItsFiles = tier("100Mi");
    tooSmallForItsFiles.setFileSize(new Quantity("64Mi"));
    DiskTierSpec twoVolumes = tier("1Gi");
    twoVolumes.setEmptyDir(new DiskEmptyDir());
    twoVolumes.setVolumeClaim(new DiskVolumeClaim());
    DiskTierSpec aboveItsClaim = tier("20Gi");
    DiskVolumeClaim small = new DiskVolumeClaim();
    small.setSize(new Quantity("10Gi"));
    aboveItsClaim.setVolumeClaim(small);

    assertThat(DiskTierCheck.problems(withDisk(tier("1.5"))))
        .singleElement()
        .asString()
        .contains("spec.storage.disk.size");
    assertThat(DiskTierCheck.problems(withDisk(tier("32Mi"))))
        .singleElement()
        .asString()
        .contains("spec.storage.disk.size (32Mi) must be from 64Mi to 1Pi");
    assertThat(DiskTierCheck.problems(withDisk(unaligned)))
        .singleElement()
        .asString()
        .contains("spec.storage.disk.fileSize");
    assertThat(DiskTierCheck.problems(withDisk(tooSmallForItsFiles)))
        .singleElement()
        .asString()
        .contains("at least two files");
    assertThat(DiskTierCheck.problems(withDisk(twoVolumes)))
        .singleElement()
        .asString()
        .contains("at most one volume");
    assertThat(DiskTierCheck.problems(withDisk(aboveItsClaim)))
        .singleElement()
        .asString()
        .contains("must not exceed spec.storage.disk.volumeClaim.size (10Gi)");
  }

  @Test
  void aClaimCannotBeAddedToOrRemovedFromARunningStorageStatefulSet() {
    KvCachePool plain = TestPools.defaultedPool("ns", "p");
    DiskTierSpec onClaims = tier("1Gi");
    onClaims.setVolumeClaim(new DiskVolumeClaim());
    KvCachePool claimed = withDisk(onClaims);
    StatefulSet runningPlain = storage(plain);
    StatefulSet runningClaimed = storage(claimed);

    assertThat(DiskTierCheck.claimChange(claimed, java.util.Optional.empty())).isEmpty();
    assertThat(DiskTierCheck.claimChange(claimed, java.util.Optional.of(runningClaimed))).isEmpty();
    assertThat(
            DiskTierCheck.claimChange(withDisk(tier("1Gi")), java.util.Optional.of(runningPlain)))
        .isEmpty();
    assertThat(DiskTierCheck.claimChange(claimed, java.util.Optional.of(runningPlain)))
        .singleElement()
        .asString()
        .startsWith("spec.storage.disk.volumeClaim cannot be added to a running pool");
    assertThat(DiskTierCheck.claimChange(plain, java.util.Optional.of(runningClaimed)))
        .singleElement()
        .asString()
        .startsWith("spec.storage.disk.volumeClaim cannot be removed from a running pool");
  }

  private static DiskTierSpec tier(String size) {
    DiskTierSpec disk = new DiskTierSpec();
    disk.setSize(new Quantity(size));
    return disk;
  }

  private static KvCachePool withDisk(DiskTierSpec disk) {
    KvCachePool pool = TestPools.defaultedPool("ns", "p");
    pool.getSpec().getStorage().setDisk(disk);
    return pool;
  }

  private static StatefulSet storage(KvCachePool pool) {
    return StatefulSets.storage(pool, TransportSettings.PLAIN_TCP);
  }

  private static Container container(StatefulSet sts) {
    return sts.getSpec().getTemplate().getSpec().getContainers().get(0);
  }

  private static Volume volume(StatefulSet sts) {
    return sts.getSpec().getTemplate().getSpec().getVolumes().stream()
        .filter(v -> v.getName().equals(DiskTierVolume.NAME))
        .findFirst()
        .orElseThrow();
  }

  private static Map<String, String> env(StatefulSet sts) {
    return container(sts).getEnv().stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
  }
}
