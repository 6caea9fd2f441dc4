package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * Progress of a rollout: a version upgrade, a pod template change or a scale-down, one pod at a
 * time. What the rollout does next is decided from the pods and the leader's view, never from here;
 * this records what an operator restart must not forget (when it started, which step runs, bytes
 * moved so far) and what happened.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpgradeStatus {

  @JsonPropertyDescription("Release the pods ran when the rollout started.")
  private String from;

  @JsonPropertyDescription(
      "Release the rollout brings the pods to (from, for a template change or scale-down).")
  private String to;

  @JsonPropertyDescription(
      "Image the pods ran when the rollout started (what a rollback returns to).")
  private String fromImage;

  @JsonPropertyDescription("Image the rollout brings the pods to.")
  private String toImage;

  @JsonPropertyDescription(
      "Checking, ScalingDown, StorageNodes, StandbyMasters, Leader, Completed, Paused,"
          + " TimedOut, RollingBack, RolledBack, Blocked or Withdrawn.")
  private RolloutPhase phase;

  @JsonPropertyDescription(
      "Why pods are replaced or removed: a version change, a pod template change, a scale-down.")
  private String reason;

  @JsonPropertyDescription("Pods that run the target.")
  private Integer updated;

  @JsonPropertyDescription("Pods the pool has when the rollout is done.")
  private Integer total;

  @JsonPropertyDescription("What the rollout does or waits for now.")
  private String currentStep;

  @JsonPropertyDescription("When the rollout started (RFC 3339).")
  private String startedAt;

  @JsonPropertyDescription("When every pod ran the target (RFC 3339).")
  private String completedAt;

  @JsonPropertyDescription(
      "Bytes of values copied between storage nodes while the rollout ran (drains and repairs).")
  private Long bytesMoved;

  @JsonPropertyDescription("Storage pods replaced that kept their replicas in their memory files.")
  private Integer warmRestarts;

  @JsonPropertyDescription("Storage pods drained before being replaced or removed.")
  private Integer drains;

  @JsonPropertyDescription("The last step that finished, with its path, duration and bytes moved.")
  private String lastStep;

  @JsonPropertyDescription("Why the rollout is blocked, paused or rolled back.")
  private String message;

  @JsonPropertyDescription("The step under way.")
  private RolloutStep step;

  @JsonPropertyDescription("Leader whose copy counter was read last (bookkeeping of bytesMoved).")
  private String copyCounterLeader;

  @JsonPropertyDescription("That counter's value then.")
  private Long copyCounterBytes;

  public String getFrom() {
    return from;
  }

  public void setFrom(String from) {
    this.from = from;
  }

  public String getTo() {
    return to;
  }

  public void setTo(String to) {
    this.to = to;
  }

  public String getFromImage() {
    return fromImage;
  }

  public void setFromImage(String fromImage) {
    this.fromImage = fromImage;
  }

  public String getToImage() {
    return toImage;
  }

  public void setToImage(String toImage) {
    this.toImage = toImage;
  }

  public RolloutPhase getPhase() {
    return phase;
  }

  public void setPhase(RolloutPhase phase) {
    this.phase = phase;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public Integer getUpdated() {
    return updated;
  }

  public void setUpdated(Integer updated) {
    this.updated = updated;
  }

  public Integer getTotal() {
    return total;
  }

  public void setTotal(Integer total) {
    this.total = total;
  }

  public String getCurrentStep() {
    return currentStep;
  }

  public void setCurrentStep(String currentStep) {
    this.currentStep = currentStep;
  }

  public String getStartedAt() {
    return startedAt;
  }

  public void setStartedAt(String startedAt) {
    this.startedAt = startedAt;
  }

  public String getCompletedAt() {
    return completedAt;
  }

  public void setCompletedAt(String completedAt) {
    this.completedAt = completedAt;
  }

  public Long getBytesMoved() {
    return bytesMoved;
  }

  public void setBytesMoved(Long bytesMoved) {
    this.bytesMoved = bytesMoved;
  }

  public Integer getWarmRestarts() {
    return warmRestarts;
  }

  public void setWarmRestarts(Integer warmRestarts) {
    this.warmRestarts = warmRestarts;
  }

  public Integer getDrains() {
    return drains;
  }

  public void setDrains(Integer drains) {
    this.drains = drains;
  }

  public String getLastStep() {
    return lastStep;
  }

  public void setLastStep(String lastStep) {
    this.lastStep = lastStep;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public RolloutStep getStep() {
    return step;
  }

  public void setStep(RolloutStep step) {
    this.step = step;
  }

  public String getCopyCounterLeader() {
    return copyCounterLeader;
  }

  public void setCopyCounterLeader(String copyCounterLeader) {
    this.copyCounterLeader = copyCounterLeader;
  }

  public Long getCopyCounterBytes() {
    return copyCounterBytes;
  }

  public void setCopyCounterBytes(Long copyCounterBytes) {
    this.copyCounterBytes = copyCounterBytes;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof UpgradeStatus that)) {
      return false;
    }
    return Objects.equals(from, that.from)
        && Objects.equals(to, that.to)
        && Objects.equals(fromImage, that.fromImage)
        && Objects.equals(toImage, that.toImage)
        && Objects.equals(phase, that.phase)
        && Objects.equals(reason, that.reason)
        && Objects.equals(updated, that.updated)
        && Objects.equals(total, that.total)
        && Objects.equals(currentStep, that.currentStep)
        && Objects.equals(startedAt, that.startedAt)
        && Objects.equals(completedAt, that.completedAt)
        && Objects.equals(bytesMoved, that.bytesMoved)
        && Objects.equals(warmRestarts, that.warmRestarts)
        && Objects.equals(drains, that.drains)
        && Objects.equals(lastStep, that.lastStep)
        && Objects.equals(message, that.message)
        && Objects.equals(step, that.step)
        && Objects.equals(copyCounterLeader, that.copyCounterLeader)
        && Objects.equals(copyCounterBytes, that.copyCounterBytes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        from,
        to,
        fromImage,
        toImage,
        phase,
        reason,
        updated,
        total,
        currentStep,
        startedAt,
        completedAt,
        bytesMoved,
        warmRestarts,
        drains,
        lastStep,
        message,
        step,
        copyCounterLeader,
        copyCounterBytes);
  }

  @Override
  public String toString() {
    return "UpgradeStatus{"
        + "from="
        + from
        + ", to="
        + to
        + ", fromImage="
        + fromImage
        + ", toImage="
        + toImage
        + ", phase="
        + phase
        + ", reason="
        + reason
        + ", updated="
        + updated
        + ", total="
        + total
        + ", currentStep="
        + currentStep
        + ", startedAt="
        + startedAt
        + ", completedAt="
        + completedAt
        + ", bytesMoved="
        + bytesMoved
        + ", warmRestarts="
        + warmRestarts
        + ", drains="
        + drains
        + ", lastStep="
        + lastStep
        + ", message="
        + message
        + ", step="
        + step
        + ", copyCounterLeader="
        + copyCounterLeader
        + ", copyCounterBytes="
        + copyCounterBytes
        + '}';
  }
}
