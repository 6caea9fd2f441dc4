package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Objects;

/** Progress of a rolling upgrade: which step runs and how many are done, so a restart can resume it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeStatus {

  private String phase;
  private String step;
  private Integer completedSteps;
  private Integer totalSteps;
  private String message;

  public String getPhase() {
    return phase;
  }

  public void setPhase(String phase) {
    this.phase = phase;
  }

  public String getStep() {
    return step;
  }

  public void setStep(String step) {
    this.step = step;
  }

  public Integer getCompletedSteps() {
    return completedSteps;
  }

  public void setCompletedSteps(Integer completedSteps) {
    this.completedSteps = completedSteps;
  }

  public Integer getTotalSteps() {
    return totalSteps;
  }

  public void setTotalSteps(Integer totalSteps) {
    this.totalSteps = totalSteps;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof UpgradeStatus that)) {
      return false;
    }
    return Objects.equals(phase, that.phase) &&
        Objects.equals(step, that.step) &&
        Objects.equals(completedSteps, that.completedSteps) &&
        Objects.equals(totalSteps, that.totalSteps) &&
        Objects.equals(message, that.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(phase, step, completedSteps, totalSteps, message);
  }

  @Override
  public String toString() {
    return "UpgradeStatus{" +
        "phase=" + phase +
        ", step=" + step +
        ", completedSteps=" + completedSteps +
        ", totalSteps=" + totalSteps +
        ", message=" + message +
        '}';
  }
}
