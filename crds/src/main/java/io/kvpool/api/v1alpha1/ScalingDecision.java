package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** One decision of the autoscaler, with the signal values it was taken on. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScalingDecision {

  private String time;

  @JsonPropertyDescription("ScaleUp, ScaleDown or Hold.")
  private String action;

  private String reason;

  private Integer fromReplicas;

  private Integer toReplicas;

  private Double fullnessPercent;

  private Double capacityMissesPerSecond;

  private Long evictedBytesPerSecond;

  private String message;

  public String getTime() {
    return time;
  }

  public void setTime(String time) {
    this.time = time;
  }

  public String getAction() {
    return action;
  }

  public void setAction(String action) {
    this.action = action;
  }

  public String getReason() {
    return reason;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public Integer getFromReplicas() {
    return fromReplicas;
  }

  public void setFromReplicas(Integer fromReplicas) {
    this.fromReplicas = fromReplicas;
  }

  public Integer getToReplicas() {
    return toReplicas;
  }

  public void setToReplicas(Integer toReplicas) {
    this.toReplicas = toReplicas;
  }

  public Double getFullnessPercent() {
    return fullnessPercent;
  }

  public void setFullnessPercent(Double fullnessPercent) {
    this.fullnessPercent = fullnessPercent;
  }

  public Double getCapacityMissesPerSecond() {
    return capacityMissesPerSecond;
  }

  public void setCapacityMissesPerSecond(Double capacityMissesPerSecond) {
    this.capacityMissesPerSecond = capacityMissesPerSecond;
  }

  public Long getEvictedBytesPerSecond() {
    return evictedBytesPerSecond;
  }

  public void setEvictedBytesPerSecond(Long evictedBytesPerSecond) {
    this.evictedBytesPerSecond = evictedBytesPerSecond;
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
    if (!(o instanceof ScalingDecision that)) {
      return false;
    }
    return Objects.equals(time, that.time)
        && Objects.equals(action, that.action)
        && Objects.equals(reason, that.reason)
        && Objects.equals(fromReplicas, that.fromReplicas)
        && Objects.equals(toReplicas, that.toReplicas)
        && Objects.equals(fullnessPercent, that.fullnessPercent)
        && Objects.equals(capacityMissesPerSecond, that.capacityMissesPerSecond)
        && Objects.equals(evictedBytesPerSecond, that.evictedBytesPerSecond)
        && Objects.equals(message, that.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        time,
        action,
        reason,
        fromReplicas,
        toReplicas,
        fullnessPercent,
        capacityMissesPerSecond,
        evictedBytesPerSecond,
        message);
  }

  @Override
  public String toString() {
    return "ScalingDecision{"
        + "time="
        + time
        + ", "
        + "action="
        + action
        + ", "
        + "reason="
        + reason
        + ", "
        + "fromReplicas="
        + fromReplicas
        + ", "
        + "toReplicas="
        + toReplicas
        + ", "
        + "fullnessPercent="
        + fullnessPercent
        + ", "
        + "capacityMissesPerSecond="
        + capacityMissesPerSecond
        + ", "
        + "evictedBytesPerSecond="
        + evictedBytesPerSecond
        + ", "
        + "message="
        + message
        + '}';
  }
}
