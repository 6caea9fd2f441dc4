package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Objects;

/**
 * A disk tier in every storage node ({@code spec.storage.disk}; absent: none): values the master
 * evicts from memory move to append-only files of checksummed records on a volume of the pod and
 * are read back from there. {@code size} is the tier's physical cap (what {@code du} says of its
 * folder); the volume is an emptyDir (the default), a node folder ({@code hostPath}) or a
 * PersistentVolumeClaim per pod ({@code volumeClaim}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "(has(self.emptyDir) ? 1 : 0) + (has(self.hostPath) ? 1 : 0)"
            + " + (has(self.volumeClaim) ? 1 : 0) <= 1",
    message = "spec.storage.disk takes at most one volume: emptyDir, hostPath or volumeClaim",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.emptyDir) || !has(self.emptyDir.sizeLimit)"
            + " || !isQuantity(string(self.size)) || !isQuantity(string(self.emptyDir.sizeLimit))"
            + " || quantity(string(self.size)).compareTo(quantity(string(self.emptyDir.sizeLimit)))"
            + " <= 0",
    message =
        "spec.storage.disk.size must not exceed spec.storage.disk.emptyDir.sizeLimit: the kubelet"
            + " evicts a pod whose emptyDir grows past its limit",
    fieldPath = ".size",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.volumeClaim) || !has(self.volumeClaim.size)"
            + " || !isQuantity(string(self.size)) || !isQuantity(string(self.volumeClaim.size))"
            + " || quantity(string(self.size)).compareTo(quantity(string(self.volumeClaim.size)))"
            + " <= 0",
    message =
        "spec.storage.disk.size must not exceed spec.storage.disk.volumeClaim.size: the tier's"
            + " files must fit in the volume",
    fieldPath = ".size",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.fileSize) || !isQuantity(string(self.size))"
            + " || !quantity(string(self.size)).isInteger()"
            + " || quantity(string(self.size)).compareTo(quantity('"
            + ApiLimits.MAX_DISK
            + "')) > 0"
            + " || !isQuantity(string(self.fileSize))"
            + " || !quantity(string(self.fileSize)).isInteger()"
            + " || quantity(string(self.fileSize)).compareTo(quantity('"
            + ApiLimits.MAX_DISK_FILE
            + "')) > 0"
            + " || quantity(string(self.size)).asInteger() >= 2 *"
            + " quantity(string(self.fileSize)).asInteger() + "
            + ApiLimits.DISK_RESERVE_BYTES,
    message =
        "spec.storage.disk.size must hold at least two files of spec.storage.disk.fileSize (plus"
            + " 64Ki for the folder); raise size or lower fileSize",
    fieldPath = ".fileSize",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "has(self.volumeClaim) == has(oldSelf.volumeClaim)"
            + " && (!has(self.volumeClaim) || self.volumeClaim == oldSelf.volumeClaim)",
    message =
        "spec.storage.disk.volumeClaim cannot be added, removed or changed on a running pool: a"
            + " StatefulSet's volume claim templates are immutable (recreate the pool to change it)",
    fieldPath = ".volumeClaim",
    reason = "FieldValueForbidden")
public class DiskTierSpec {

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Required
  @ValidationRule(
      value =
          "isQuantity(string(self)) && quantity(string(self)).isInteger()"
              + " && quantity(string(self)).compareTo(quantity('"
              + ApiLimits.MIN_DISK
              + "')) >= 0"
              + " && quantity(string(self)).compareTo(quantity('"
              + ApiLimits.MAX_DISK
              + "')) <= 0",
      message =
          "spec.storage.disk.size must be a whole number of bytes from "
              + ApiLimits.MIN_DISK
              + " to "
              + ApiLimits.MAX_DISK
              + ", such as 20Gi",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription(
      "The disk tier's cap on each storage node, 64Mi to 1Pi, e.g. 20Gi: what its files occupy on"
          + " the volume, records, headers and not yet reclaimed garbage included.")
  private Quantity size;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @ValidationRule(
      value =
          "isQuantity(string(self)) && quantity(string(self)).isInteger()"
              + " && quantity(string(self)).compareTo(quantity('"
              + ApiLimits.MIN_DISK_FILE
              + "')) >= 0"
              + " && quantity(string(self)).compareTo(quantity('"
              + ApiLimits.MAX_DISK_FILE
              + "')) <= 0"
              + " && quantity(string(self)).asInteger() % "
              + ApiLimits.DISK_FILE_ALIGNMENT
              + " == 0",
      message =
          "spec.storage.disk.fileSize must be a whole number of 4Ki blocks from "
              + ApiLimits.MIN_DISK_FILE
              + " to "
              + ApiLimits.MAX_DISK_FILE
              + ", such as 64Mi",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription(
      "Size of one tier file (the tier reclaims whole files); default 64Mi, halved down to 1Mi"
          + " until the tier holds 8 files.")
  private Quantity fileSize;

  @JsonPropertyDescription(
      "The tier on an emptyDir of the pod (the default when no volume is given): lost when the pod"
          + " is deleted.")
  private DiskEmptyDir emptyDir;

  @JsonPropertyDescription(
      "The tier in a folder of the node: kept across pod replacement on the same node.")
  private DiskHostPath hostPath;

  @JsonPropertyDescription(
      "The tier on a PersistentVolumeClaim per storage pod: kept across pod replacement, wherever"
          + " the volume can follow the pod.")
  private DiskVolumeClaim volumeClaim;

  public Quantity getSize() {
    return size;
  }

  public void setSize(Quantity size) {
    this.size = size;
  }

  public Quantity getFileSize() {
    return fileSize;
  }

  public void setFileSize(Quantity fileSize) {
    this.fileSize = fileSize;
  }

  public DiskEmptyDir getEmptyDir() {
    return emptyDir;
  }

  public void setEmptyDir(DiskEmptyDir emptyDir) {
    this.emptyDir = emptyDir;
  }

  public DiskHostPath getHostPath() {
    return hostPath;
  }

  public void setHostPath(DiskHostPath hostPath) {
    this.hostPath = hostPath;
  }

  public DiskVolumeClaim getVolumeClaim() {
    return volumeClaim;
  }

  public void setVolumeClaim(DiskVolumeClaim volumeClaim) {
    this.volumeClaim = volumeClaim;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof DiskTierSpec that)) {
      return false;
    }
    return Objects.equals(size, that.size)
        && Objects.equals(fileSize, that.fileSize)
        && Objects.equals(emptyDir, that.emptyDir)
        && Objects.equals(hostPath, that.hostPath)
        && Objects.equals(volumeClaim, that.volumeClaim);
  }

  @Override
  public int hashCode() {
    return Objects.hash(size, fileSize, emptyDir, hostPath, volumeClaim);
  }

  @Override
  public String toString() {
    return "DiskTierSpec{size="
        + size
        + ", fileSize="
        + fileSize
        + ", emptyDir="
        + emptyDir
        + ", hostPath="
        + hostPath
        + ", volumeClaim="
        + volumeClaim
        + '}';
  }
}
