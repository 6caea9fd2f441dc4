package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.model.annotation.LabelSelector;
import io.fabric8.kubernetes.model.annotation.StatusReplicas;
import java.util.List;
import java.util.Objects;

/**
 * Observed state of a {@link KvCachePool}, written only by the operator. {@code
 * storageReadyReplicas} and {@code storageSelector} back the scale subresource; {@code masters},
 * {@code storage}, {@code capacity} and {@code used} are preformatted for the printer columns.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KvCachePoolStatus {

  // Condition types of a pool (status.conditions[].type).
  public static final String READY = "Ready";
  public static final String AVAILABLE = "Available";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";
  public static final String UPGRADE_BLOCKED = "UpgradeBlocked";

  private PoolPhase phase;
  private List<Condition> conditions;
  private Long observedGeneration;
  private String currentVersion;
  private String targetVersion;
  private String leader;
  private Long viewNumber;
  private String masters;
  private String storage;
  private Integer masterReadyReplicas;
  @StatusReplicas private Integer storageReadyReplicas;
  @LabelSelector private String storageSelector;
  private String capacity;
  private String used;
  private Double usedRatio;
  private Long objectCount;
  private UpgradeStatus upgrade;
  private List<FailingPod> failingPods;

  @JsonPropertyDescription(
      "How the live storage nodes move bytes and which devices they opened, from the leader.")
  private TransportUsage transport;

  private String message;

  @JsonPropertyDescription("Fullness, eviction rate and capacity misses, from the leader.")
  private CacheSignalsStatus cacheSignals;

  @JsonPropertyDescription(
      "The autoscaler's last decision and who owns spec.storage.replicas (with autoscaling on).")
  private AutoscalingStatus autoscaling;

  @JsonPropertyDescription(
      "The leader's KV events (with spec.events.enabled): topic, last published sequence, drops.")
  private EventsStatus events;

  public PoolPhase getPhase() {
    return phase;
  }

  public void setPhase(PoolPhase phase) {
    this.phase = phase;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public String getCurrentVersion() {
    return currentVersion;
  }

  public void setCurrentVersion(String currentVersion) {
    this.currentVersion = currentVersion;
  }

  public String getTargetVersion() {
    return targetVersion;
  }

  public void setTargetVersion(String targetVersion) {
    this.targetVersion = targetVersion;
  }

  public String getLeader() {
    return leader;
  }

  public void setLeader(String leader) {
    this.leader = leader;
  }

  public Long getViewNumber() {
    return viewNumber;
  }

  public void setViewNumber(Long viewNumber) {
    this.viewNumber = viewNumber;
  }

  public String getMasters() {
    return masters;
  }

  public void setMasters(String masters) {
    this.masters = masters;
  }

  public String getStorage() {
    return storage;
  }

  public void setStorage(String storage) {
    this.storage = storage;
  }

  public Integer getMasterReadyReplicas() {
    return masterReadyReplicas;
  }

  public void setMasterReadyReplicas(Integer masterReadyReplicas) {
    this.masterReadyReplicas = masterReadyReplicas;
  }

  public Integer getStorageReadyReplicas() {
    return storageReadyReplicas;
  }

  public void setStorageReadyReplicas(Integer storageReadyReplicas) {
    this.storageReadyReplicas = storageReadyReplicas;
  }

  public String getStorageSelector() {
    return storageSelector;
  }

  public void setStorageSelector(String storageSelector) {
    this.storageSelector = storageSelector;
  }

  public String getCapacity() {
    return capacity;
  }

  public void setCapacity(String capacity) {
    this.capacity = capacity;
  }

  public String getUsed() {
    return used;
  }

  public void setUsed(String used) {
    this.used = used;
  }

  public Double getUsedRatio() {
    return usedRatio;
  }

  public void setUsedRatio(Double usedRatio) {
    this.usedRatio = usedRatio;
  }

  public Long getObjectCount() {
    return objectCount;
  }

  public void setObjectCount(Long objectCount) {
    this.objectCount = objectCount;
  }

  public UpgradeStatus getUpgrade() {
    return upgrade;
  }

  public void setUpgrade(UpgradeStatus upgrade) {
    this.upgrade = upgrade;
  }

  public List<FailingPod> getFailingPods() {
    return failingPods;
  }

  public void setFailingPods(List<FailingPod> failingPods) {
    this.failingPods = failingPods;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  public TransportUsage getTransport() {
    return transport;
  }

  public void setTransport(TransportUsage transport) {
    this.transport = transport;
  }

  public CacheSignalsStatus getCacheSignals() {
    return cacheSignals;
  }

  public void setCacheSignals(CacheSignalsStatus cacheSignals) {
    this.cacheSignals = cacheSignals;
  }

  public AutoscalingStatus getAutoscaling() {
    return autoscaling;
  }

  public void setAutoscaling(AutoscalingStatus autoscaling) {
    this.autoscaling = autoscaling;
  }

  public EventsStatus getEvents() {
    return events;
  }

  public void setEvents(EventsStatus events) {
    this.events = events;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof KvCachePoolStatus that)) {
      return false;
    }
    return Objects.equals(phase, that.phase)
        && Objects.equals(conditions, that.conditions)
        && Objects.equals(observedGeneration, that.observedGeneration)
        && Objects.equals(currentVersion, that.currentVersion)
        && Objects.equals(targetVersion, that.targetVersion)
        && Objects.equals(leader, that.leader)
        && Objects.equals(viewNumber, that.viewNumber)
        && Objects.equals(masters, that.masters)
        && Objects.equals(storage, that.storage)
        && Objects.equals(masterReadyReplicas, that.masterReadyReplicas)
        && Objects.equals(storageReadyReplicas, that.storageReadyReplicas)
        && Objects.equals(storageSelector, that.storageSelector)
        && Objects.equals(capacity, that.capacity)
        && Objects.equals(used, that.used)
        && Objects.equals(usedRatio, that.usedRatio)
        && Objects.equals(objectCount, that.objectCount)
        && Objects.equals(upgrade, that.upgrade)
        && Objects.equals(failingPods, that.failingPods)
        && Objects.equals(message, that.message)
        && Objects.equals(transport, that.transport)
        && Objects.equals(cacheSignals, that.cacheSignals)
        && Objects.equals(autoscaling, that.autoscaling)
        && Objects.equals(events, that.events);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        phase,
        conditions,
        observedGeneration,
        currentVersion,
        targetVersion,
        leader,
        viewNumber,
        masters,
        storage,
        masterReadyReplicas,
        storageReadyReplicas,
        storageSelector,
        capacity,
        used,
        usedRatio,
        objectCount,
        upgrade,
        failingPods,
        message,
        transport,
        cacheSignals,
        autoscaling,
        events);
  }

  @Override
  public String toString() {
    return "KvCachePoolStatus{"
        + "phase="
        + phase
        + ", conditions="
        + conditions
        + ", observedGeneration="
        + observedGeneration
        + ", currentVersion="
        + currentVersion
        + ", targetVersion="
        + targetVersion
        + ", leader="
        + leader
        + ", viewNumber="
        + viewNumber
        + ", masters="
        + masters
        + ", storage="
        + storage
        + ", masterReadyReplicas="
        + masterReadyReplicas
        + ", storageReadyReplicas="
        + storageReadyReplicas
        + ", storageSelector="
        + storageSelector
        + ", capacity="
        + capacity
        + ", used="
        + used
        + ", usedRatio="
        + usedRatio
        + ", objectCount="
        + objectCount
        + ", upgrade="
        + upgrade
        + ", failingPods="
        + failingPods
        + ", message="
        + message
        + ", cacheSignals="
        + cacheSignals
        + ", autoscaling="
        + autoscaling
        + ", events="
        + events
        + '}';
  }
}
