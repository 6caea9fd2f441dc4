package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Objects;

/**
 * A disk tier on a PersistentVolumeClaim per storage pod (the storage StatefulSet's volume claim
 * template {@value ApiLimits#DISK_VOLUME}); the claims outlive the pods and the pool's scale-down.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DiskVolumeClaim {

  // NONE: fixed once the pool is stored (a CEL transition rule of DiskTierSpec refuses a change);
  // only the claims of a new pool are made from these fields.
  @SpecDiff(SpecDiff.Impact.NONE)
  @Pattern(ApiLimits.STORAGE_CLASS_PATTERN)
  @Size(max = 253)
  @JsonPropertyDescription("StorageClass of the claims; default: the cluster's default class.")
  private String storageClassName;

  @SpecDiff(SpecDiff.Impact.NONE)
  @ValidationRule(
      value = "isQuantity(string(self)) && quantity(string(self)).isInteger()",
      message = "spec.storage.disk.volumeClaim.size must be a whole number of bytes, e.g. 25Gi",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription("Storage each claim requests, at least disk.size; default disk.size.")
  private Quantity size;

  public String getStorageClassName() {
    return storageClassName;
  }

  public void setStorageClassName(String storageClassName) {
    this.storageClassName = storageClassName;
  }

  public Quantity getSize() {
    return size;
  }

  public void setSize(Quantity size) {
    this.size = size;
  }

  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof DiskVolumeClaim that
            && Objects.equals(storageClassName, that.storageClassName)
            && Objects.equals(size, that.size));
  }

  @Override
  public int hashCode() {
    return Objects.hash(storageClassName, size);
  }

  @Override
  public String toString() {
    return "DiskVolumeClaim{storageClassName=" + storageClassName + ", size=" + size + '}';
  }
}
