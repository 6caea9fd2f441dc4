package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** Masters of a pool: one, or three for a leader plus two standbys elected through a Lease. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.port) || !has(self.adminPort) || self.port != self.adminPort",
    message =
        "spec.master.port and spec.master.adminPort must differ: both are bound in the same pod",
    fieldPath = ".adminPort",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.resources) || ("
            + "(!has(self.resources.requests) || !('memory' in self.resources.requests)"
            + " || !isQuantity(string(self.resources.requests['memory']))"
            + " || quantity(string(self.resources.requests['memory'])).compareTo(quantity('256Mi')) >= 0)"
            + " && (!has(self.resources.limits) || !('memory' in self.resources.limits)"
            + " || !isQuantity(string(self.resources.limits['memory']))"
            + " || quantity(string(self.resources.limits['memory'])).compareTo(quantity('256Mi')) >= 0))",
    message =
        "spec.master.resources memory must be at least 256Mi: the master's JVM takes half of it as heap",
    fieldPath = ".resources",
    reason = "FieldValueInvalid")
public class MasterSpec {
  /** CRD defaults, stated once (see {@link KvCachePoolSpec}). */
  public static final int DEFAULT_REPLICAS = 1;

  public static final int DEFAULT_PORT = 50051;
  public static final int DEFAULT_ADMIN_PORT = 8080;
  public static final boolean DEFAULT_PLACEMENT_RAMP = true;

  @SpecDiff(SpecDiff.Impact.RESTART_ALL)
  @Default("" + DEFAULT_REPLICAS)
  @ValidationRule(
      value = "self == 1 || self == 3",
      message = "spec.master.replicas must be 1 (single master) or 3 (leader plus two standbys)",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription("1 (single master) or 3 (leader plus two standbys).")
  private Integer replicas;

  @SpecDiff(SpecDiff.Impact.RESTART_ALL)
  @Default("" + DEFAULT_PORT)
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("RPC port of the master.")
  private Integer port;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Default("" + DEFAULT_ADMIN_PORT)
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("HTTP admin port of the master (status, drain, step-down, metrics).")
  private Integer adminPort;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @JsonPropertyDescription(
      "CPU and memory of each master container; memory defaults to 1Gi (request and limit) and"
          + " the cpu request to 250m. The JVM heap is half the memory limit (or request), direct memory a quarter.")
  private ComputeResources resources;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Default("" + DEFAULT_PLACEMENT_RAMP)
  @JsonPropertyDescription(
      "Whether placement ramps a storage node that joins or restarts empty: it takes its fair"
          + " share (by capacity) of the last 10 s of puts when it registers, growing to 1.5 times"
          + " it over 60 s, so scaling up creates no hotspot. false: power of two choices alone,"
          + " which gives the emptiest node about twice its fair share until it catches up."
          + " Changing it restarts the masters.")
  private Boolean placementRamp;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @JsonPropertyDescription(
      "Where masters may run; independent of spec.scheduling (storage), no constraint when"
          + " left out except spreading the masters across nodes.")
  private SchedulingSpec scheduling;

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }

  public Integer getAdminPort() {
    return adminPort;
  }

  public void setAdminPort(Integer adminPort) {
    this.adminPort = adminPort;
  }

  public ComputeResources getResources() {
    return resources;
  }

  public void setResources(ComputeResources resources) {
    this.resources = resources;
  }

  public Boolean getPlacementRamp() {
    return placementRamp;
  }

  public void setPlacementRamp(Boolean placementRamp) {
    this.placementRamp = placementRamp;
  }

  public SchedulingSpec getScheduling() {
    return scheduling;
  }

  public void setScheduling(SchedulingSpec scheduling) {
    this.scheduling = scheduling;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof MasterSpec that)) {
      return false;
    }
    return Objects.equals(replicas, that.replicas)
        && Objects.equals(port, that.port)
        && Objects.equals(adminPort, that.adminPort)
        && Objects.equals(resources, that.resources)
        && Objects.equals(placementRamp, that.placementRamp)
        && Objects.equals(scheduling, that.scheduling);
  }

  @Override
  public int hashCode() {
    return Objects.hash(replicas, port, adminPort, resources, placementRamp, scheduling);
  }

  @Override
  public String toString() {
    return "MasterSpec{"
        + "replicas="
        + replicas
        + ", port="
        + port
        + ", adminPort="
        + adminPort
        + ", resources="
        + resources
        + ", placementRamp="
        + placementRamp
        + ", scheduling="
        + scheduling
        + '}';
  }
}
