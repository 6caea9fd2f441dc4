package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * How changes that need new pods are rolled out: a new version, and any change of the pod templates
 * (resources, TransferEngine, ...) or of the storage replica count (scale-down). Read by the
 * operator only.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeSpec {
  /** CRD defaults, stated once (see {@link KvCachePoolSpec}). */
  public static final String DEFAULT_STEP_TIMEOUT = "10m";

  public static final String DEFAULT_ON_FAILURE = "Pause";

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("false")
  @JsonPropertyDescription(
      "Hold every rollout step: no pod is restarted, drained or removed while true; the steps"
          + " continue from where they stopped once false.")
  private Boolean paused;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default(DEFAULT_STEP_TIMEOUT)
  @Pattern(ApiLimits.DURATION_PATTERN)
  @Size(max = ApiLimits.MAX_DURATION)
  @ValidationRule(
      value =
          "!self.matches('"
              + ApiLimits.DURATION_PATTERN
              + "')"
              + " || (duration(self) >= duration('10s') && duration(self) <= duration('24h'))",
      message = "spec.upgrade.stepTimeout must be between 10s and 1440m (24 hours), e.g. 10m",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription(
      "Time one step (a drain, a pod replaced and ready, a leader hand-over) may take before"
          + " onFailure applies, 10s to 1440m, e.g. 10m.")
  private String stepTimeout;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default(DEFAULT_ON_FAILURE)
  @JsonPropertyDescription(
      "Pause (stop and report; the rollout goes on by itself once the step's pod is ready) or"
          + " Rollback (return every pod to the version the rollout started from) when a step times out.")
  private UpgradeFailurePolicy onFailure;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("false")
  @JsonPropertyDescription(
      "Allow a version lower than the running one (same major, one minor step at a time, and"
          + " protocols the handshake accepts).")
  private Boolean allowDowngrade;

  public Boolean getPaused() {
    return paused;
  }

  public void setPaused(Boolean paused) {
    this.paused = paused;
  }

  public String getStepTimeout() {
    return stepTimeout;
  }

  public void setStepTimeout(String stepTimeout) {
    this.stepTimeout = stepTimeout;
  }

  public UpgradeFailurePolicy getOnFailure() {
    return onFailure;
  }

  public void setOnFailure(UpgradeFailurePolicy onFailure) {
    this.onFailure = onFailure;
  }

  public Boolean getAllowDowngrade() {
    return allowDowngrade;
  }

  public void setAllowDowngrade(Boolean allowDowngrade) {
    this.allowDowngrade = allowDowngrade;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof UpgradeSpec that)) {
      return false;
    }
    return Objects.equals(paused, that.paused)
        && Objects.equals(stepTimeout, that.stepTimeout)
        && Objects.equals(onFailure, that.onFailure)
        && Objects.equals(allowDowngrade, that.allowDowngrade);
  }

  @Override
  public int hashCode() {
    return Objects.hash(paused, stepTimeout, onFailure, allowDowngrade);
  }

  @Override
  public String toString() {
    return "UpgradeSpec{"
        + "paused="
        + paused
        + ", stepTimeout="
        + stepTimeout
        + ", onFailure="
        + onFailure
        + ", allowDowngrade="
        + allowDowngrade
        + '}';
  }
}
