package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
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
    value =
        "!has(self.objectReplicas) || !has(self.storage) || !has(self.storage.replicas)"
            + " || self.objectReplicas <= self.storage.replicas",
    message =
        "spec.objectReplicas must not exceed spec.storage.replicas: each copy of an object needs its"
            + " own storage node; lower objectReplicas (default 2) or add storage replicas",
    fieldPath = ".objectReplicas",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.leaseTtl) || !has(self.nodeTtl) || !self.leaseTtl.matches('"
            + ApiLimits.DURATION_PATTERN
            + "') || !self.nodeTtl.matches('"
            + ApiLimits.DURATION_PATTERN
            + "')"
            + " || duration(self.leaseTtl) <= duration(self.nodeTtl)",
    message =
        "spec.leaseTtl must not exceed spec.nodeTtl: a read lease that outlives the time after which a silent"
            + " storage node is declared dead protects a replica that may already be gone; lower leaseTtl (default 5s)"
            + " or raise nodeTtl (default 10s)",
    fieldPath = ".leaseTtl",
    reason = "FieldValueInvalid")
@ValidationRule(
    value =
        "!has(self.events) || !has(self.master) || ["
            + " has(self.events.port) ? self.events.port : 0,"
            + " has(self.events.replayPort) ? self.events.replayPort : 0].all(p,"
            + " (!has(self.master.port) || p != self.master.port)"
            + " && (!has(self.master.adminPort) || p != self.master.adminPort))",
    message =
        "spec.events.port and spec.events.replayPort must differ from spec.master.port and"
            + " spec.master.adminPort: all four are bound in the master pods",
    fieldPath = ".events",
    reason = "FieldValueInvalid")
public class KvCachePoolSpec {
  /*
   * The CRD defaults the API server fills in, stated once: the generated schema takes them from these constants, and
   * the operator reads them where it meets an object stored before a default existed (or built outside an API server).
   */
  public static final String DEFAULT_IMAGE_PULL_POLICY = "IfNotPresent";
  public static final int DEFAULT_OBJECT_REPLICAS = 2;
  public static final String DEFAULT_LEASE_TTL = "5s";
  public static final String DEFAULT_NODE_TTL = "10s";

  @SpecDiff(SpecDiff.Impact.UPGRADE)
  @Required
  // CEL rules rather than @Pattern: the user reads what a version looks like instead of a regex.
  @ValidationRule(
      value =
          "self.matches('"
              + ApiLimits.VERSION_PATTERN
              + "') && self.matches('"
              + ApiLimits.ENDS_ALPHANUMERIC
              + "')",
      message =
          "spec.version must be a semantic version such as 1.2.0 or 1.3.0-rc.1: no leading v, no +build"
              + " metadata, ending in a letter or digit (it becomes the app.kubernetes.io/version label and the image tag)",
      reason = "FieldValueInvalid")
  @Size(max = ApiLimits.MAX_VERSION) // a label value; also bounds the CEL cost estimate
  @JsonPropertyDescription(
      "Data-plane release to run, a semantic version such as 1.2.0 (no leading v, no build"
          + " metadata, at most 63 characters).")
  private String version;

  @SpecDiff(SpecDiff.Impact.UPGRADE)
  @ValidationRule(
      value = "self.matches('" + ApiLimits.IMAGE_PATTERN + "')",
      message =
          "spec.image must be an image reference such as registry.example.com/kvpool/data-plane:1.2.0"
              + " (lowercase repository path, optional tag and @sha256 digest, no spaces)",
      reason = "FieldValueInvalid")
  @Size(max = ApiLimits.MAX_IMAGE)
  @JsonPropertyDescription(
      "Data-plane image; the operator uses kvpool/data-plane:<version> when empty.")
  private String image;

  @SpecDiff(SpecDiff.Impact.RESTART_ALL)
  @Default(DEFAULT_IMAGE_PULL_POLICY)
  @JsonPropertyDescription("Pull policy of the data-plane image.")
  private ImagePullPolicy imagePullPolicy;

  @Default("{}")
  @JsonPropertyDescription("Master replicas, ports and resources.")
  private MasterSpec master;

  @Required
  @JsonPropertyDescription(
      "Storage nodes: replicas, memory per node, segments, huge pages, ports and resources.")
  private StorageSpec storage;

  @SpecDiff(SpecDiff.Impact.NONE)
  @Default("" + DEFAULT_OBJECT_REPLICAS)
  @Min(1)
  @Max(16)
  @JsonPropertyDescription(
      "Number of storage nodes that hold a copy of each object; at most storage.replicas.")
  private Integer objectReplicas;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Default(DEFAULT_LEASE_TTL)
  @Pattern(ApiLimits.DURATION_PATTERN)
  @Size(max = ApiLimits.MAX_DURATION)
  @ValidationRule(
      value =
          "!self.matches('"
              + ApiLimits.DURATION_PATTERN
              + "')"
              + " || (duration(self) >= duration('1s') && duration(self) <= duration('10m'))",
      message = "spec.leaseTtl must be between 1s and 10m, e.g. 5s",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription(
      "Read lease that protects an object from eviction while a client reads it, 1s to 10m,"
          + " at most nodeTtl, e.g. 5s.")
  private String leaseTtl;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Default(DEFAULT_NODE_TTL)
  @Pattern(ApiLimits.DURATION_PATTERN)
  @Size(max = ApiLimits.MAX_DURATION)
  @ValidationRule(
      value =
          "!self.matches('"
              + ApiLimits.DURATION_PATTERN
              + "')"
              + " || (duration(self) >= duration('3s') && duration(self) <= duration('10m'))",
      message = "spec.nodeTtl must be between 3s (three heartbeats) and 10m, e.g. 10s",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription(
      "A storage node silent for this long is declared dead, 3s to 10m, e.g. 10s.")
  private String nodeTtl;

  @Default("{}")
  @JsonPropertyDescription("When and how much the master evicts.")
  private EvictionSpec eviction;

  @Default("{}")
  @JsonPropertyDescription("How a change of version is rolled out.")
  private UpgradeSpec upgrade;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @JsonPropertyDescription(
      "TransferEngine in the same namespace; without it the pool uses plain TCP defaults.")
  private TransferEngineRef transferEngineRef;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @JsonPropertyDescription(
      "Where storage pods may run (masters are placed by spec.master.scheduling); without"
          + " topologySpreadConstraints the storage pods are spread across nodes (kubernetes.io/hostname).")
  private SchedulingSpec scheduling;

  @Default("{}")
  @JsonPropertyDescription(
      "Keys proven in every data-plane handshake, TLS, and the pool's NetworkPolicy.")
  private SecuritySpec security;

  @Default("{}")
  @JsonPropertyDescription(
      "KV events of the masters (vLLM's format): what the pool holds, for KV-cache-aware routers.")
  private EventsSpec events;

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

  public SecuritySpec getSecurity() {
    return security;
  }

  public void setSecurity(SecuritySpec security) {
    this.security = security;
  }

  public SchedulingSpec getScheduling() {
    return scheduling;
  }

  public void setScheduling(SchedulingSpec scheduling) {
    this.scheduling = scheduling;
  }

  public EventsSpec getEvents() {
    return events;
  }

  public void setEvents(EventsSpec events) {
    this.events = events;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof KvCachePoolSpec that)) {
      return false;
    }
    return Objects.equals(version, that.version)
        && Objects.equals(image, that.image)
        && Objects.equals(imagePullPolicy, that.imagePullPolicy)
        && Objects.equals(master, that.master)
        && Objects.equals(storage, that.storage)
        && Objects.equals(objectReplicas, that.objectReplicas)
        && Objects.equals(leaseTtl, that.leaseTtl)
        && Objects.equals(nodeTtl, that.nodeTtl)
        && Objects.equals(eviction, that.eviction)
        && Objects.equals(upgrade, that.upgrade)
        && Objects.equals(transferEngineRef, that.transferEngineRef)
        && Objects.equals(scheduling, that.scheduling)
        && Objects.equals(security, that.security)
        && Objects.equals(events, that.events);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        version,
        image,
        imagePullPolicy,
        master,
        storage,
        objectReplicas,
        leaseTtl,
        nodeTtl,
        eviction,
        upgrade,
        transferEngineRef,
        scheduling,
        security,
        events);
  }

  @Override
  public String toString() {
    return "KvCachePoolSpec{"
        + "version="
        + version
        + ", image="
        + image
        + ", imagePullPolicy="
        + imagePullPolicy
        + ", master="
        + master
        + ", storage="
        + storage
        + ", objectReplicas="
        + objectReplicas
        + ", leaseTtl="
        + leaseTtl
        + ", nodeTtl="
        + nodeTtl
        + ", eviction="
        + eviction
        + ", upgrade="
        + upgrade
        + ", transferEngineRef="
        + transferEngineRef
        + ", scheduling="
        + scheduling
        + ", security="
        + security
        + ", events="
        + events
        + '}';
  }
}
