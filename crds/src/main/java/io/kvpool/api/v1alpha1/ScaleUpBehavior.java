package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.Objects;

/** How the autoscaler grows a pool. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScaleUpBehavior {
  /** CRD default, stated once. */
  public static final int DEFAULT_WINDOW_SECONDS = 60;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("" + ScaleUpBehavior.DEFAULT_WINDOW_SECONDS)
  @Min(0)
  @Max(3600)
  @JsonPropertyDescription(
      "A target must be exceeded in every reading for this long before nodes are added.")
  private Integer stabilizationWindowSeconds;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("1")
  @Min(1)
  @Max(ApiLimits.MAX_STORAGE_REPLICAS)
  @JsonPropertyDescription("Most nodes added by one decision.")
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
    if (!(o instanceof ScaleUpBehavior that)) {
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
    return "ScaleUpBehavior{"
        + "stabilizationWindowSeconds="
        + stabilizationWindowSeconds
        + ", "
        + "maxStep="
        + maxStep
        + '}';
  }
}
