package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.Objects;

/** Masters of a pool: one, or three for a leader plus two standbys elected through a Lease. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.port) || !has(self.adminPort) || self.port != self.adminPort",
    message = "spec.master.port and spec.master.adminPort must differ: both are bound in the same pod",
    fieldPath = ".adminPort",
    reason = "FieldValueInvalid")
public class MasterSpec {

  @Default("1")
  @ValidationRule(value = "self == 1 || self == 3",
      message = "spec.master.replicas must be 1 (single master) or 3 (leader plus two standbys)",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription("1 (single master) or 3 (leader plus two standbys).")
  private Integer replicas;

  @Default("50051")
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("RPC port of the master.")
  private Integer port;

  @Default("8080")
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("HTTP admin port of the master (status, drain, step-down, metrics).")
  private Integer adminPort;

  @JsonPropertyDescription("CPU and memory of each master container.")
  private ResourceRequirements resources;

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

  public ResourceRequirements getResources() {
    return resources;
  }

  public void setResources(ResourceRequirements resources) {
    this.resources = resources;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof MasterSpec that)) {
      return false;
    }
    return Objects.equals(replicas, that.replicas) &&
        Objects.equals(port, that.port) &&
        Objects.equals(adminPort, that.adminPort) &&
        Objects.equals(resources, that.resources);
  }

  @Override
  public int hashCode() {
    return Objects.hash(replicas, port, adminPort, resources);
  }

  @Override
  public String toString() {
    return "MasterSpec{" +
        "replicas=" + replicas +
        ", port=" + port +
        ", adminPort=" + adminPort +
        ", resources=" + resources +
        '}';
  }
}
