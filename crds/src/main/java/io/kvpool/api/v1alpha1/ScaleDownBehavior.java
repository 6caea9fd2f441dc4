package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.Objects;

/** How the autoscaler shrinks a pool: always through the drain, one node at a time. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScaleDownBehavior {
  /** CRD default, stated once. */
  public static final int DEFAULT_WINDOW_SECONDS = 300;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("" + ScaleDownBehavior.DEFAULT_WINDOW_SECONDS)
  @Min(0)
  @Max(86400)
  @JsonPropertyDescription(
      "The pool must meet its targets with fewer nodes in every reading for this long before a"
          + " node is removed.")
  private Integer stabilizationWindowSeconds;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("1")
  @Min(1)
  @Max(ApiLimits.MAX_STORAGE_REPLICAS)
  @JsonPropertyDescription(
      "Most nodes removed by one decision (the drain still removes them one at a time).")
  private Integer maxStep;

  public Integer getStabilizationWindowSeconds() {
    return stabilizationWindowSeconds;
  }

  public void setStabilizationWindowSeconds(Integer stabilizationWindowSeconds) {
    this.stabilizationWindowSeconds = stabilizationWindowSeconds;
  }

  public Integer getMaxStep() {
    return maxStep;
  }

  public void setMaxStep(Integer maxStep) {
    this.maxStep = maxStep;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ScaleDownBehavior that)) {
      return false;
    }
    return Objects.equals(stabilizationWindowSeconds, that.stabilizationWindowSeconds)
        && Objects.equals(maxStep, that.maxStep);
  }

  @Override
  public int hashCode() {
    return Objects.hash(stabilizationWindowSeconds, maxStep);
  }

  @Override
  public String toString() {
    return "ScaleDownBehavior{"
        + "stabilizationWindowSeconds="
        + stabilizationWindowSeconds
        + ", "
        + "maxStep="
        + maxStep
        + '}';
  }
}
