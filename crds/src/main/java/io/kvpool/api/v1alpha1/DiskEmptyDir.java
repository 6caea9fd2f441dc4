package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Objects;

/** A disk tier on an emptyDir of the storage pod. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DiskEmptyDir {

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @ValidationRule(
      value = "isQuantity(string(self)) && quantity(string(self)).isInteger()",
      message = "spec.storage.disk.emptyDir.sizeLimit must be a whole number of bytes, e.g. 25Gi",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription(
      "The emptyDir's sizeLimit, at least disk.size; default disk.size (the tier never exceeds"
          + " it).")
  private Quantity sizeLimit;

  public Quantity getSizeLimit() {
    return sizeLimit;
  }

  public void setSizeLimit(Quantity sizeLimit) {
    this.sizeLimit = sizeLimit;
  }

  @Override
  public boolean equals(Object o) {
    return this == o
        || (o instanceof DiskEmptyDir that && Objects.equals(sizeLimit, that.sizeLimit));
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(sizeLimit);
  }

  @Override
  public String toString() {
    return "DiskEmptyDir{sizeLimit=" + sizeLimit + '}';
  }
}
