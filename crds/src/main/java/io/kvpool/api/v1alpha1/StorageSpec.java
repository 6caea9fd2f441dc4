package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import java.util.Objects;

/** Storage nodes of a pool; {@code replicas} is the scale subresource's spec path. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.port) || !has(self.adminPort) || self.port != self.adminPort",
    message = "spec.storage.port and spec.storage.adminPort must differ: both are bound in the same pod",
    fieldPath = ".adminPort",
    reason = "FieldValueInvalid")
public class StorageSpec {

  @SpecReplicas
  @Default("3")
  @Min(1)
  @JsonPropertyDescription("Number of storage nodes (kubectl scale changes it).")
  private Integer replicas;

  @Required
  // string() makes the rule hold for both forms of an int-or-string quantity (4294967296 and "4Gi")
  @ValidationRule(value = "isQuantity(string(self)) && quantity(string(self)).isGreaterThan(quantity('0'))",
      message = "spec.storage.memoryPerNode must be a positive quantity such as 4Gi",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription("Memory each storage node contributes to the pool, e.g. 4Gi.")
  private Quantity memoryPerNode;

  @Default("1")
  @Min(1)
  @JsonPropertyDescription("Number of segments memoryPerNode is split into.")
  private Integer segments;

  @Default("transparent")
  @JsonPropertyDescription("Huge pages for segments: none, transparent or explicit (hugepages-2Mi resources).")
  private HugePages hugePages;

  @Default("50052")
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Data port of each storage node.")
  private Integer port;

  @Default("8081")
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("HTTP admin port of each storage node.")
  private Integer adminPort;

  @JsonPropertyDescription("CPU and memory of each storage container, on top of memoryPerNode.")
  private ResourceRequirements resources;

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public Quantity getMemoryPerNode() {
    return memoryPerNode;
  }

  public void setMemoryPerNode(Quantity memoryPerNode) {
    this.memoryPerNode = memoryPerNode;
  }

  public Integer getSegments() {
    return segments;
  }

  public void setSegments(Integer segments) {
    this.segments = segments;
  }

  public HugePages getHugePages() {
    return hugePages;
  }

  public void setHugePages(HugePages hugePages) {
    this.hugePages = hugePages;
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
    if (!(o instanceof StorageSpec that)) {
      return false;
    }
    return Objects.equals(replicas, that.replicas) &&
        Objects.equals(memoryPerNode, that.memoryPerNode) &&
        Objects.equals(segments, that.segments) &&
        Objects.equals(hugePages, that.hugePages) &&
        Objects.equals(port, that.port) &&
        Objects.equals(adminPort, that.adminPort) &&
        Objects.equals(resources, that.resources);
  }

  @Override
  public int hashCode() {
    return Objects.hash(replicas, memoryPerNode, segments, hugePages, port, adminPort, resources);
  }

  @Override
  public String toString() {
    return "StorageSpec{" +
        "replicas=" + replicas +
        ", memoryPerNode=" + memoryPerNode +
        ", segments=" + segments +
        ", hugePages=" + hugePages +
        ", port=" + port +
        ", adminPort=" + adminPort +
        ", resources=" + resources +
        '}';
  }
}
