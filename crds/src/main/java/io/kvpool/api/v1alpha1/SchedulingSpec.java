package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Placement of master and storage pods, passed through to their pod templates. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SchedulingSpec {

  @JsonPropertyDescription("Node labels the pods require.")
  private Map<String, String> nodeSelector;

  @JsonPropertyDescription("Taints the pods tolerate.")
  private List<Toleration> tolerations;

  @JsonPropertyDescription("Node and pod affinity of the pods.")
  private Affinity affinity;

  public Map<String, String> getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(Map<String, String> nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public List<Toleration> getTolerations() {
    return tolerations;
  }

  public void setTolerations(List<Toleration> tolerations) {
    this.tolerations = tolerations;
  }

  public Affinity getAffinity() {
    return affinity;
  }

  public void setAffinity(Affinity affinity) {
    this.affinity = affinity;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SchedulingSpec that)) {
      return false;
    }
    return Objects.equals(nodeSelector, that.nodeSelector) &&
        Objects.equals(tolerations, that.tolerations) &&
        Objects.equals(affinity, that.affinity);
  }

  @Override
  public int hashCode() {
    return Objects.hash(nodeSelector, tolerations, affinity);
  }

  @Override
  public String toString() {
    return "SchedulingSpec{" +
        "nodeSelector=" + nodeSelector +
        ", tolerations=" + tolerations +
        ", affinity=" + affinity +
        '}';
  }
}
