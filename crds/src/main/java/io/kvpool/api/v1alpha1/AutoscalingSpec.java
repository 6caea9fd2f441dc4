package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * The operator sizing the storage nodes on cache signals (off by default): it writes {@code
 * spec.storage.replicas} between {@code minReplicas} and {@code maxReplicas}, up when a target is
 * exceeded for the scale-up window, down (through the drain) when the pool would still meet its
 * targets with fewer nodes for the scale-down window. Read by the operator only.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.enabled) || !self.enabled || (has(self.minReplicas) && has(self.maxReplicas)"
            + " && self.minReplicas <= self.maxReplicas)",
    message =
        "spec.storage.autoscaling needs minReplicas and maxReplicas with minReplicas <= maxReplicas when enabled",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.enabled) || !self.enabled || (has(self.targets)"
            + " && (has(self.targets.fullnessPercent) || has(self.targets.capacityMissesPerSecond)))",
    message =
        "spec.storage.autoscaling needs a target when enabled: targets.fullnessPercent and/or"
            + " targets.capacityMissesPerSecond",
    fieldPath = ".targets",
    reason = "FieldValueRequired")
public class AutoscalingSpec {

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("false")
  @JsonPropertyDescription(
      "Let the operator set spec.storage.replicas from the pool's cache signals. Leave it off when"
          + " an HPA or a KEDA ScaledObject drives the scale subresource.")
  private Boolean enabled;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Min(1)
  @Max(ApiLimits.MAX_STORAGE_REPLICAS)
  @JsonPropertyDescription(
      "Fewest storage nodes the operator scales to (never below what the data needs either).")
  private Integer minReplicas;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Min(1)
  @Max(ApiLimits.MAX_STORAGE_REPLICAS)
  @JsonPropertyDescription("Most storage nodes the operator scales to.")
  private Integer maxReplicas;

  @JsonPropertyDescription("Signals the pool must stay under; at least one.")
  private AutoscalingTargets targets;

  @Default("{}")
  @JsonPropertyDescription("How fast the pool grows.")
  private ScaleUpBehavior scaleUp;

  @Default("{}")
  @JsonPropertyDescription("How fast the pool shrinks.")
  private ScaleDownBehavior scaleDown;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getMinReplicas() {
    return minReplicas;
  }

  public void setMinReplicas(Integer minReplicas) {
    this.minReplicas = minReplicas;
  }

  public Integer getMaxReplicas() {
    return maxReplicas;
  }

  public void setMaxReplicas(Integer maxReplicas) {
    this.maxReplicas = maxReplicas;
  }

  public AutoscalingTargets getTargets() {
    return targets;
  }

  public void setTargets(AutoscalingTargets targets) {
    this.targets = targets;
  }

  public ScaleUpBehavior getScaleUp() {
    return scaleUp;
  }

  public void setScaleUp(ScaleUpBehavior scaleUp) {
    this.scaleUp = scaleUp;
  }

  public ScaleDownBehavior getScaleDown() {
    return scaleDown;
  }

  public void setScaleDown(ScaleDownBehavior scaleDown) {
    this.scaleDown = scaleDown;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof AutoscalingSpec that)) {
      return false;
    }
    return Objects.equals(enabled, that.enabled)
        && Objects.equals(minReplicas, that.minReplicas)
        && Objects.equals(maxReplicas, that.maxReplicas)
        && Objects.equals(targets, that.targets)
        && Objects.equals(scaleUp, that.scaleUp)
        && Objects.equals(scaleDown, that.scaleDown);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, minReplicas, maxReplicas, targets, scaleUp, scaleDown);
  }

  @Override
  public String toString() {
    return "AutoscalingSpec{"
        + "enabled="
        + enabled
        + ", "
        + "minReplicas="
        + minReplicas
        + ", "
        + "maxReplicas="
        + maxReplicas
        + ", "
        + "targets="
        + targets
        + ", "
        + "scaleUp="
        + scaleUp
        + ", "
        + "scaleDown="
        + scaleDown
        + '}';
  }
}
