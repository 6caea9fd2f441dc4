package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import java.util.Objects;

/** How a change of {@code spec.version} is rolled out. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeSpec {

  @Default("RollingUpdate")
  @JsonPropertyDescription("RollingUpdate (one pod at a time) or Paused (hold the current version).")
  private UpgradeStrategy strategy;

  @Default("10m")
  @Pattern(KvCachePoolSpec.DURATION_PATTERN)
  @JsonPropertyDescription("Time one step may take to become ready before onFailure applies, e.g. 10m.")
  private String stepTimeout;

  @Default("Pause")
  @JsonPropertyDescription("Pause (stop and report) or Rollback (return to the previous version) when a step fails.")
  private UpgradeFailurePolicy onFailure;

  @Default("false")
  @JsonPropertyDescription("Allow a version lower than the running one where declared compatible.")
  private Boolean allowDowngrade;

  public UpgradeStrategy getStrategy() {
    return strategy;
  }

  public void setStrategy(UpgradeStrategy strategy) {
    this.strategy = strategy;
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
    return Objects.equals(strategy, that.strategy) &&
        Objects.equals(stepTimeout, that.stepTimeout) &&
        Objects.equals(onFailure, that.onFailure) &&
        Objects.equals(allowDowngrade, that.allowDowngrade);
  }

  @Override
  public int hashCode() {
    return Objects.hash(strategy, stepTimeout, onFailure, allowDowngrade);
  }

  @Override
  public String toString() {
    return "UpgradeSpec{" +
        "strategy=" + strategy +
        ", stepTimeout=" + stepTimeout +
        ", onFailure=" + onFailure +
        ", allowDowngrade=" + allowDowngrade +
        '}';
  }
}
