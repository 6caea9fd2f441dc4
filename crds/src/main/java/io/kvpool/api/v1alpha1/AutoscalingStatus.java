package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/** What the autoscaler decided last, and who owns the storage replica count. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class AutoscalingStatus {

  @JsonPropertyDescription(
      "Operator, or External when something else (an HPA, KEDA, kubectl scale) changed"
          + " spec.storage.replicas since the operator last wrote it: the operator then holds.")
  private String owner;

  @JsonPropertyDescription("The spec.storage.replicas the operator last wrote.")
  private Integer desiredReplicas;

  @JsonPropertyDescription(
      "When the operator last found spec.storage.replicas changed by another writer.")
  private String externalChangeSeen;

  private ScalingDecision lastDecision;

  @JsonPropertyDescription("The last scale decisions (up to 5), newest first.")
  private List<ScalingDecision> recentScaling;

  public String getOwner() {
    return owner;
  }

  public void setOwner(String owner) {
    this.owner = owner;
  }

  public Integer getDesiredReplicas() {
    return desiredReplicas;
  }

  public void setDesiredReplicas(Integer desiredReplicas) {
    this.desiredReplicas = desiredReplicas;
  }

  public String getExternalChangeSeen() {
    return externalChangeSeen;
  }

  public void setExternalChangeSeen(String externalChangeSeen) {
    this.externalChangeSeen = externalChangeSeen;
  }

  public ScalingDecision getLastDecision() {
    return lastDecision;
  }

  public void setLastDecision(ScalingDecision lastDecision) {
    this.lastDecision = lastDecision;
  }

  public List<ScalingDecision> getRecentScaling() {
    return recentScaling;
  }

  public void setRecentScaling(List<ScalingDecision> recentScaling) {
    this.recentScaling = recentScaling;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof AutoscalingStatus that)) {
      return false;
    }
    return Objects.equals(owner, that.owner)
        && Objects.equals(desiredReplicas, that.desiredReplicas)
        && Objects.equals(externalChangeSeen, that.externalChangeSeen)
        && Objects.equals(lastDecision, that.lastDecision)
        && Objects.equals(recentScaling, that.recentScaling);
  }

  @Override
  public int hashCode() {
    return Objects.hash(owner, desiredReplicas, externalChangeSeen, lastDecision, recentScaling);
  }

  @Override
  public String toString() {
    return "AutoscalingStatus{"
        + "owner="
        + owner
        + ", "
        + "desiredReplicas="
        + desiredReplicas
        + ", "
        + "externalChangeSeen="
        + externalChangeSeen
        + ", "
        + "lastDecision="
        + lastDecision
        + ", "
        + "recentScaling="
        + recentScaling
        + '}';
  }
}
