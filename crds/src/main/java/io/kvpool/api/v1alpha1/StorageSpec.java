package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.model.annotation.SpecReplicas;
import java.util.Objects;

/** Storage nodes of a pool; {@code replicas} is the scale subresource's spec path. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.port) || !has(self.adminPort) || self.port != self.adminPort",
    message =
        "spec.storage.port and spec.storage.adminPort must differ: both are bound in the same pod",
    fieldPath = ".adminPort",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.memoryPerNode) || !has(self.segments) || !isQuantity(string(self.memoryPerNode))"
            + " || !quantity(string(self.memoryPerNode)).isInteger()"
            + " || quantity(string(self.memoryPerNode)).compareTo(quantity('"
            + ApiLimits.MAX_MEMORY_PER_NODE
            + "')) > 0"
            + " || quantity(string(self.memoryPerNode)).asInteger() / self.segments >= "
            + ApiLimits.MIN_SEGMENT_BYTES,
    message =
        "spec.storage.memoryPerNode split into spec.storage.segments must give at least "
            + ApiLimits.MIN_SEGMENT
            + " per segment, so that the largest KV value (16 MiB) fits in one; lower segments"
            + " or raise memoryPerNode",
    fieldPath = ".segments",
    reason = "FieldValueInvalid")
public class StorageSpec {
  /**
   * CRD defaults, stated once (see {@link KvCachePoolSpec}); {@link #DEFAULT_HUGE_PAGES} as the CRD
   * spells it.
   */
  public static final int DEFAULT_REPLICAS = 3;

  public static final int DEFAULT_SEGMENTS = 1;
  public static final String DEFAULT_HUGE_PAGES = "transparent";
  public static final int DEFAULT_PORT = 50052;
  public static final int DEFAULT_ADMIN_PORT = 8081;

  @SpecDiff(SpecDiff.Impact.SCALE)
  @SpecReplicas
  @Default("" + DEFAULT_REPLICAS)
  @Min(1)
  @Max(ApiLimits.MAX_STORAGE_REPLICAS)
  @JsonPropertyDescription("Number of storage nodes (kubectl scale changes it).")
  private Integer replicas;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Required
  // string() makes the rule hold for both forms of an int-or-string quantity (4294967296 and "4Gi")
  @ValidationRule(
      value =
          "isQuantity(string(self)) && quantity(string(self)).isInteger()"
              + " && quantity(string(self)).compareTo(quantity('"
              + ApiLimits.MIN_SEGMENT
              + "')) >= 0"
              + " && quantity(string(self)).compareTo(quantity('"
              + ApiLimits.MAX_MEMORY_PER_NODE
              + "')) <= 0",
      message =
          "spec.storage.memoryPerNode must be a whole number of bytes from "
              + ApiLimits.MIN_SEGMENT
              + " to "
              + ApiLimits.MAX_MEMORY_PER_NODE
              + ", such as 4Gi",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription(
      "Memory each storage node contributes to the pool, 16Mi to 64Ti, e.g. 4Gi.")
  private Quantity memoryPerNode;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Default("" + DEFAULT_SEGMENTS)
  @Min(1)
  @Max(ApiLimits.MAX_SEGMENTS)
  @JsonPropertyDescription(
      "Number of segments memoryPerNode is split into; each must hold at least 16Mi.")
  private Integer segments;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Default(DEFAULT_HUGE_PAGES)
  @JsonPropertyDescription(
      "Huge pages for segments: none, transparent or explicit (hugepages-2Mi resources).")
  private HugePages hugePages;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Default("" + DEFAULT_PORT)
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Data port of each storage node.")
  private Integer port;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Default("" + DEFAULT_ADMIN_PORT)
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("HTTP admin port of each storage node.")
  private Integer adminPort;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @JsonPropertyDescription(
      "CPU and memory of each storage container. The memory request and limit are at least"
          + " memoryPerNode (unless hugePages is explicit) plus 512Mi for the JVM; a larger limit gives the JVM more.")
  private ComputeResources resources;

  @Default("{}")
  @JsonPropertyDescription(
      "Warm restarts: replicas kept in node-local memory files across pod replacement.")
  private WarmRestartSpec warmRestart;

  @Default("{}")
  @JsonPropertyDescription("The operator sizing replicas on cache signals (off by default).")
  private AutoscalingSpec autoscaling;

  @JsonPropertyDescription(
      "A disk tier in every storage node (absent: none): values evicted from memory move to it and"
          + " are read back from it.")
  private DiskTierSpec disk;

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

  public ComputeResources getResources() {
    return resources;
  }

  public void setResources(ComputeResources resources) {
    this.resources = resources;
  }

  public WarmRestartSpec getWarmRestart() {
    return warmRestart;
  }

  public void setWarmRestart(WarmRestartSpec warmRestart) {
    this.warmRestart = warmRestart;
  }

  public AutoscalingSpec getAutoscaling() {
    return autoscaling;
  }

  public void setAutoscaling(AutoscalingSpec autoscaling) {
    this.autoscaling = autoscaling;
  }

  public DiskTierSpec getDisk() {
    return disk;
  }

  public void setDisk(DiskTierSpec disk) {
    this.disk = disk;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof StorageSpec that)) {
      return false;
    }
    return Objects.equals(replicas, that.replicas)
        && Objects.equals(memoryPerNode, that.memoryPerNode)
        && Objects.equals(segments, that.segments)
        && Objects.equals(hugePages, that.hugePages)
        && Objects.equals(port, that.port)
        && Objects.equals(adminPort, that.adminPort)
        && Objects.equals(resources, that.resources)
        && Objects.equals(warmRestart, that.warmRestart)
        && Objects.equals(autoscaling, that.autoscaling)
        && Objects.equals(disk, that.disk);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        replicas,
        memoryPerNode,
        segments,
        hugePages,
        port,
        adminPort,
        resources,
        warmRestart,
        autoscaling,
        disk);
  }

  @Override
  public String toString() {
    return "StorageSpec{"
        + "replicas="
        + replicas
        + ", memoryPerNode="
        + memoryPerNode
        + ", segments="
        + segments
        + ", hugePages="
        + hugePages
        + ", port="
        + port
        + ", adminPort="
        + adminPort
        + ", resources="
        + resources
        + ", warmRestart="
        + warmRestart
        + ", autoscaling="
        + autoscaling
        + ", disk="
        + disk
        + '}';
  }
}
