package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Placement of one kind of data-plane pods (spec.scheduling for storage nodes,
 * spec.master.scheduling for masters), passed through to their pod template. What the schema cannot
 * check here (tolerations, affinity, spread constraints) the operator checks with a server-side dry
 * run before it creates anything.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SchedulingSpec {

  // Keys and values are checked by the operator's dry run: a CEL rule over a map of unbounded
  // strings exceeds
  // the API server's cost budget.
  @Size(max = 64)
  @JsonPropertyDescription("Node labels the pods require.")
  private Map<String, String> nodeSelector;

  @Size(max = 64)
  @JsonPropertyDescription("Taints the pods tolerate.")
  private List<Toleration> tolerations;

  @JsonPropertyDescription("Node and pod affinity of the pods.")
  private Affinity affinity;

  @Size(max = 16)
  @JsonPropertyDescription(
      "How the pods spread over topology domains; when left out, at most one more pod per"
          + " node than on any other node (kubernetes.io/hostname); an empty list turns spreading off.")
  private List<TopologySpreadConstraint> topologySpreadConstraints;

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

  public List<TopologySpreadConstraint> getTopologySpreadConstraints() {
    return topologySpreadConstraints;
  }

  public void setTopologySpreadConstraints(
      List<TopologySpreadConstraint> topologySpreadConstraints) {
    this.topologySpreadConstraints = topologySpreadConstraints;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof SchedulingSpec that)) {
      return false;
    }
    return Objects.equals(nodeSelector, that.nodeSelector)
        && Objects.equals(tolerations, that.tolerations)
        && Objects.equals(affinity, that.affinity)
        && Objects.equals(topologySpreadConstraints, that.topologySpreadConstraints);
  }

  @Override
  public int hashCode() {
    return Objects.hash(nodeSelector, tolerations, affinity, topologySpreadConstraints);
  }

  @Override
  public String toString() {
    return "SchedulingSpec{"
        + "nodeSelector="
        + nodeSelector
        + ", tolerations="
        + tolerations
        + ", affinity="
        + affinity
        + ", topologySpreadConstraints="
        + topologySpreadConstraints
        + '}';
  }
}
