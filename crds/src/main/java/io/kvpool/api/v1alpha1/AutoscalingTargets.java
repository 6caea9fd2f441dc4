package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.Objects;

/** What the autoscaler keeps the pool under; a target left out is not used. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AutoscalingTargets {

  @SpecDiff(SpecDiff.Impact.NONE)
  @Min(1)
  @Max(100)
  @JsonPropertyDescription(
      "Used over capacity of the memory tier, in percent, e.g. 80; a disk tier does not count"
          + " (memory evictions move there). Keep it under the eviction high watermark (90 by"
          + " default): above it the master evicts and fullness stops rising.")
  private Integer fullnessPercent;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Min(0)
  @JsonPropertyDescription(
      "Capacity misses per second over the master's 60 s window: gets that missed a key the pool"
          + " evicted recently (it was too small for it), e.g. 5.")
  private Double capacityMissesPerSecond;

  public Integer getFullnessPercent() {
    return fullnessPercent;
  }

  public void setFullnessPercent(Integer fullnessPercent) {
    this.fullnessPercent = fullnessPercent;
  }

  public Double getCapacityMissesPerSecond() {
    return capacityMissesPerSecond;
  }

  public void setCapacityMissesPerSecond(Double capacityMissesPerSecond) {
    this.capacityMissesPerSecond = capacityMissesPerSecond;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof AutoscalingTargets that)) {
      return false;
    }
    return Objects.equals(fullnessPercent, that.fullnessPercent)
        && Objects.equals(capacityMissesPerSecond, that.capacityMissesPerSecond);
  }

  @Override
  public int hashCode() {
    return Objects.hash(fullnessPercent, capacityMissesPerSecond);
  }

  @Override
  public String toString() {
    return "AutoscalingTargets{"
        + "fullnessPercent="
        + fullnessPercent
        + ", "
        + "capacityMissesPerSecond="
        + capacityMissesPerSecond
        + '}';
  }
}
