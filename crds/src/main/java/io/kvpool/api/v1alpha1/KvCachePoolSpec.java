package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * Desired state of a {@link KvCachePool}. Every optional field has a CRD default applied by the API
 * server, so the operator reads effective values from the stored object and never writes defaults.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.objectReplicas) || !has(self.storage) || !has(self.storage.replicas)"
        + " || self.objectReplicas <= self.storage.replicas",
    message = "spec.objectReplicas must not exceed spec.storage.replicas: each copy of an object needs its"
        + " own storage node; lower objectReplicas (default 2) or add storage replicas",
    fieldPath = ".objectReplicas",
    reason = "FieldValueInvalid")
public class KvCachePoolSpec {

  /**
   * Semantic version 2.0.0 without a leading "v" (it is also the default image tag). Written with
   * character classes instead of backslashes so it can sit inside a CEL string literal.
   */
  static final String SEMVER_PATTERN = "^(0|[1-9][0-9]*)[.](0|[1-9][0-9]*)[.](0|[1-9][0-9]*)"
      + "(-[0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?([+][0-9A-Za-z-]+([.][0-9A-Za-z-]+)*)?$";
  /** Durations the data plane parses: whole milliseconds, seconds or minutes. */
  static final String DURATION_PATTERN = "^[0-9]+(ms|s|m)$";

  @Required
  // A CEL rule rather than @Pattern: the user reads what a version looks like instead of a regex.
  @ValidationRule(value = "self.matches('" + SEMVER_PATTERN + "')",
      message = "spec.version must be a semantic version such as 1.2.0 or 1.3.0-rc.1, without a leading v",
      reason = "FieldValueInvalid")
  @Size(max = 64) // bounds the CEL cost estimate; the API server refuses unbounded rules
  @JsonPropertyDescription("Data-plane release to run, a semantic version such as 1.2.0 (no leading v).")
  private String version;

  @JsonPropertyDescription("Data-plane image; the operator uses kvpool/data-plane:<version> when empty.")
  private String image;

  @Default("IfNotPresent")
  @JsonPropertyDescription("Pull policy of the data-plane image.")
  private ImagePullPolicy imagePullPolicy;

  @Default("{}")
  @JsonPropertyDescription("Master replicas, ports and resources.")
  private MasterSpec master;

  @Required
  @JsonPropertyDescription("Storage nodes: replicas, memory per node, segments, huge pages, ports and resources.")
  private StorageSpec storage;

  @Default("2")
  @Min(1)
  @JsonPropertyDescription("Number of storage nodes that hold a copy of each object; at most storage.replicas.")
  private Integer objectReplicas;

  @Default("5s")
  @Pattern(DURATION_PATTERN)
  @JsonPropertyDescription("Read lease that protects an object from eviction while a client reads it, e.g. 5s.")
  private String leaseTtl;

  @Default("10s")
  @Pattern(DURATION_PATTERN)
  @JsonPropertyDescription("A storage node silent for this long is declared dead, e.g. 10s.")
  private String nodeTtl;

  @Default("{}")
  @JsonPropertyDescription("When and how much the master evicts.")
  private EvictionSpec eviction;

  @Default("{}")
  @JsonPropertyDescription("How a change of version is rolled out.")
  private UpgradeSpec upgrade;

  @JsonPropertyDescription("TransferEngine in the same namespace; without it the pool uses plain TCP defaults.")
  private TransferEngineRef transferEngineRef;

  @JsonPropertyDescription("Where master and storage pods may run.")
  private SchedulingSpec scheduling;

  public String getVersion() {
    return version;
  }

  public void setVersion(String version) {
    this.version = version;
  }

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public ImagePullPolicy getImagePullPolicy() {
    return imagePullPolicy;
  }

  public void setImagePullPolicy(ImagePullPolicy imagePullPolicy) {
    this.imagePullPolicy = imagePullPolicy;
  }

  public MasterSpec getMaster() {
    return master;
  }

  public void setMaster(MasterSpec master) {
    this.master = master;
  }

  public StorageSpec getStorage() {
    return storage;
  }

  public void setStorage(StorageSpec storage) {
    this.storage = storage;
  }

  public Integer getObjectReplicas() {
    return objectReplicas;
  }

  public void setObjectReplicas(Integer objectReplicas) {
    this.objectReplicas = objectReplicas;
  }

  public String getLeaseTtl() {
    return leaseTtl;
  }

  public void setLeaseTtl(String leaseTtl) {
    this.leaseTtl = leaseTtl;
  }

  public String getNodeTtl() {
    return nodeTtl;
  }

  public void setNodeTtl(String nodeTtl) {
    this.nodeTtl = nodeTtl;
  }

  public EvictionSpec getEviction() {
    return eviction;
  }

  public void setEviction(EvictionSpec eviction) {
    this.eviction = eviction;
  }

  public UpgradeSpec getUpgrade() {
    return upgrade;
  }

  public void setUpgrade(UpgradeSpec upgrade) {
    this.upgrade = upgrade;
  }

  public TransferEngineRef getTransferEngineRef() {
    return transferEngineRef;
  }

  public void setTransferEngineRef(TransferEngineRef transferEngineRef) {
    this.transferEngineRef = transferEngineRef;
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
    if (!(o instanceof KvCachePoolSpec that)) {
      return false;
    }
    return Objects.equals(version, that.version) &&
        Objects.equals(image, that.image) &&
        Objects.equals(imagePullPolicy, that.imagePullPolicy) &&
        Objects.equals(master, that.master) &&
        Objects.equals(storage, that.storage) &&
        Objects.equals(objectReplicas, that.objectReplicas) &&
        Objects.equals(leaseTtl, that.leaseTtl) &&
        Objects.equals(nodeTtl, that.nodeTtl) &&
        Objects.equals(eviction, that.eviction) &&
        Objects.equals(upgrade, that.upgrade) &&
        Objects.equals(transferEngineRef, that.transferEngineRef) &&
        Objects.equals(scheduling, that.scheduling);
  }

  @Override
  public int hashCode() {
    return Objects.hash(version, image, imagePullPolicy, master, storage, objectReplicas, leaseTtl, nodeTtl, eviction,
        upgrade, transferEngineRef, scheduling);
  }

  @Override
  public String toString() {
    return "KvCachePoolSpec{" +
        "version=" + version +
        ", image=" + image +
        ", imagePullPolicy=" + imagePullPolicy +
        ", master=" + master +
        ", storage=" + storage +
        ", objectReplicas=" + objectReplicas +
        ", leaseTtl=" + leaseTtl +
        ", nodeTtl=" + nodeTtl +
        ", eviction=" + eviction +
        ", upgrade=" + upgrade +
        ", transferEngineRef=" + transferEngineRef +
        ", scheduling=" + scheduling +
        '}';
  }
}
