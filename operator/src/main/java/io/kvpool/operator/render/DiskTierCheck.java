package io.kvpool.operator.render;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.kvpool.api.v1alpha1.ApiLimits;
import io.kvpool.api.v1alpha1.DiskTierSpec;
import io.kvpool.api.v1alpha1.DiskVolumeClaim;
import io.kvpool.api.v1alpha1.KvCachePool;
import io.kvpool.operator.common.ByteQuantity;
import io.kvpool.operator.common.InvalidSpecException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The CRD's rules for {@code spec.storage.disk} ({@link DiskTierSpec}), repeated for objects stored
 * under an older, looser schema: one sentence per problem, naming the field. Empty means valid.
 */
public final class DiskTierCheck {
  private static final Pattern HOST_PATH = Pattern.compile(ApiLimits.HOST_PATH_PATTERN);
  private static final long MIN_DISK = bytes(ApiLimits.MIN_DISK);
  private static final long MAX_DISK = bytes(ApiLimits.MAX_DISK);
  private static final long MIN_FILE = bytes(ApiLimits.MIN_DISK_FILE);
  private static final long MAX_FILE = bytes(ApiLimits.MAX_DISK_FILE);

  private DiskTierCheck() {}

  public static List<String> problems(KvCachePool pool) {
    List<String> problems = new ArrayList<>();
    Optional<DiskTierVolume> tier;
    try {
      tier = DiskTierVolume.of(pool);
    } catch (InvalidSpecException e) {
      problems.add(e.getMessage());
      return problems;
    }
    tier.ifPresent(t -> check(t, problems));
    return problems;
  }

  /**
   * A claim template the running storage StatefulSet does not have, or has and the spec no longer
   * renders: the API server refuses such an update (a StatefulSet's claim templates are immutable),
   * so it is reported naming the pool's field instead.
   */
  public static List<String> claimChange(KvCachePool pool, Optional<StatefulSet> liveStorage) {
    if (liveStorage.isEmpty()) {
      return List.of();
    }
    List<PersistentVolumeClaim> live =
        Optional.ofNullable(liveStorage.get().getSpec().getVolumeClaimTemplates())
            .orElse(List.of());
    Optional<DiskVolumeClaim> wanted;
    try {
      wanted = DiskTierVolume.of(pool).map(t -> t.spec().getVolumeClaim());
    } catch (InvalidSpecException e) {
      return List.of(); // reported by problems()
    }
    boolean running =
        live.stream().anyMatch(c -> DiskTierVolume.NAME.equals(c.getMetadata().getName()));
    if (running == wanted.isPresent()) {
      return List.of();
    }
    return List.of(
        "spec.storage.disk.volumeClaim cannot be "
            + (running ? "removed from" : "added to")
            + " a running pool: the storage StatefulSet's volume claim templates are immutable"
            + " (recreate the pool to change it)");
  }

  private static void check(DiskTierVolume tier, List<String> problems) {
    DiskTierSpec spec = tier.spec();
    if (tier.sizeBytes() < MIN_DISK || tier.sizeBytes() > MAX_DISK) {
      problems.add(
          "spec.storage.disk.size ("
              + ByteQuantity.display(tier.sizeBytes())
              + ") must be from "
              + ApiLimits.MIN_DISK
              + " to "
              + ApiLimits.MAX_DISK);
    }
    tier.fileBytes()
        .ifPresent(
            file -> {
              if (file < MIN_FILE || file > MAX_FILE || file % ApiLimits.DISK_FILE_ALIGNMENT != 0) {
                problems.add(
                    "spec.storage.disk.fileSize ("
                        + file
                        + " bytes) must be a whole number of 4Ki blocks from "
                        + ApiLimits.MIN_DISK_FILE
                        + " to "
                        + ApiLimits.MAX_DISK_FILE);
              } else if (tier.sizeBytes() < 2 * file + ApiLimits.DISK_RESERVE_BYTES) {
                problems.add(
                    "spec.storage.disk.size ("
                        + ByteQuantity.display(tier.sizeBytes())
                        + ") must hold at least two files of spec.storage.disk.fileSize ("
                        + ByteQuantity.display(file)
                        + ") plus 64Ki for the folder; raise size or lower fileSize");
              }
            });
    int volumes =
        (spec.getEmptyDir() != null ? 1 : 0)
            + (spec.getHostPath() != null ? 1 : 0)
            + (spec.getVolumeClaim() != null ? 1 : 0);
    if (volumes > 1) {
      problems.add("spec.storage.disk takes at most one volume: emptyDir, hostPath or volumeClaim");
    }
    if (spec.getEmptyDir() != null) {
      atLeastSize(tier, "spec.storage.disk.emptyDir.sizeLimit", spec.getEmptyDir().getSizeLimit())
          .ifPresent(problems::add);
    }
    if (spec.getVolumeClaim() != null) {
      atLeastSize(tier, "spec.storage.disk.volumeClaim.size", spec.getVolumeClaim().getSize())
          .ifPresent(problems::add);
    }
    if (spec.getHostPath() != null) {
      String path = spec.getHostPath().getPath();
      if (path == null || path.length() > 512 || !HOST_PATH.matcher(path).matches()) {
        problems.add(
            "spec.storage.disk.hostPath.path '"
                + path
                + "' must be an absolute node path without spaces, at most 512 characters");
      }
    }
  }

  /** A problem when the volume's size is given and below the tier's. */
  private static Optional<String> atLeastSize(DiskTierVolume tier, String field, Quantity volume) {
    if (volume == null) {
      return Optional.empty();
    }
    long bytes;
    try {
      bytes = ByteQuantity.bytes(field, volume);
    } catch (InvalidSpecException e) {
      return Optional.of(e.getMessage());
    }
    if (bytes < tier.sizeBytes()) {
      return Optional.of(
          "spec.storage.disk.size ("
              + ByteQuantity.display(tier.sizeBytes())
              + ") must not exceed "
              + field
              + " ("
              + ByteQuantity.display(bytes)
              + "): the tier's files must fit in the volume");
    }
    return Optional.empty();
  }

  private static long bytes(String quantity) {
    return ByteQuantity.bytes("limit", new Quantity(quantity));
  }
}
