package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * The step of a rollout under way, kept so that its duration and bytes moved can be reported when
 * it ends.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RolloutStep {

  @JsonPropertyDescription("Pod the step works on.")
  private String pod;

  @JsonPropertyDescription(
      "What is done to it: WarmRestart, Drain, Restart (no memory to keep), StepDown, Remove.")
  private String action;

  @JsonPropertyDescription("When the step started (RFC 3339).")
  private String startedAt;

  @JsonPropertyDescription(
      "When the operator last acted on the pod in this step (a drain, then its deletion).")
  private String actedAt;

  @JsonPropertyDescription("status.upgrade.bytesMoved when the step started.")
  private Long bytesMovedAtStart;

  @JsonPropertyDescription("Replicas the leader counted on the pod's node when the step started.")
  private Long replicasAtStart;

  public String getPod() {
    return pod;
  }

  public void setPod(String pod) {
    this.pod = pod;
  }

  public String getAction() {
    return action;
  }

  public void setAction(String action) {
    this.action = action;
  }

  public String getStartedAt() {
    return startedAt;
  }

  public void setStartedAt(String startedAt) {
    this.startedAt = startedAt;
  }

  public String getActedAt() {
    return actedAt;
  }

  public void setActedAt(String actedAt) {
    this.actedAt = actedAt;
  }

  public Long getBytesMovedAtStart() {
    return bytesMovedAtStart;
  }

  public void setBytesMovedAtStart(Long bytesMovedAtStart) {
    this.bytesMovedAtStart = bytesMovedAtStart;
  }

  public Long getReplicasAtStart() {
    return replicasAtStart;
  }

  public void setReplicasAtStart(Long replicasAtStart) {
    this.replicasAtStart = replicasAtStart;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RolloutStep that)) {
      return false;
    }
    return Objects.equals(pod, that.pod)
        && Objects.equals(action, that.action)
        && Objects.equals(startedAt, that.startedAt)
        && Objects.equals(actedAt, that.actedAt)
        && Objects.equals(bytesMovedAtStart, that.bytesMovedAtStart)
        && Objects.equals(replicasAtStart, that.replicasAtStart);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pod, action, startedAt, actedAt, bytesMovedAtStart, replicasAtStart);
  }

  @Override
  public String toString() {
    return "RolloutStep{pod="
        + pod
        + ", action="
        + action
        + ", startedAt="
        + startedAt
        + ", actedAt="
        + actedAt
        + ", bytesMovedAtStart="
        + bytesMovedAtStart
        + ", replicasAtStart="
        + replicasAtStart
        + '}';
  }
}
