package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Objects;

/** Observed state of a {@link TransferEngine}, written only by the operator. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TransferEngineStatus {

  private List<String> pools;
  private List<Condition> conditions;
  private Boolean deviceResourceAdvertised;
  private Integer nodesWithDevice;
  private Long observedGeneration;

  @JsonPropertyDescription(
      "Per pool using this engine: its live storage nodes and the devices they opened.")
  private List<TransportUsage> usage;

  @JsonPropertyDescription(
      "What carries the values between clients and storage nodes today: tcp for every protocol"
          + " (ascend opens device memory on the nodes, rdma changes nothing on the wire) until a hardware transport"
          + " exists; the TransportAvailable condition says so when another protocol was asked for.")
  private String dataTransport;

  public List<String> getPools() {
    return pools;
  }

  public void setPools(List<String> pools) {
    this.pools = pools;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  public Boolean getDeviceResourceAdvertised() {
    return deviceResourceAdvertised;
  }

  public void setDeviceResourceAdvertised(Boolean deviceResourceAdvertised) {
    this.deviceResourceAdvertised = deviceResourceAdvertised;
  }

  public Integer getNodesWithDevice() {
    return nodesWithDevice;
  }

  public void setNodesWithDevice(Integer nodesWithDevice) {
    this.nodesWithDevice = nodesWithDevice;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<TransportUsage> getUsage() {
    return usage;
  }

  public void setUsage(List<TransportUsage> usage) {
    this.usage = usage;
  }

  public String getDataTransport() {
    return dataTransport;
  }

  public void setDataTransport(String dataTransport) {
    this.dataTransport = dataTransport;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TransferEngineStatus that)) {
      return false;
    }
    return Objects.equals(pools, that.pools)
        && Objects.equals(conditions, that.conditions)
        && Objects.equals(deviceResourceAdvertised, that.deviceResourceAdvertised)
        && Objects.equals(nodesWithDevice, that.nodesWithDevice)
        && Objects.equals(observedGeneration, that.observedGeneration)
        && Objects.equals(usage, that.usage)
        && Objects.equals(dataTransport, that.dataTransport);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        pools,
        conditions,
        deviceResourceAdvertised,
        nodesWithDevice,
        observedGeneration,
        usage,
        dataTransport);
  }

  @Override
  public String toString() {
    return "TransferEngineStatus{"
        + "pools="
        + pools
        + ", conditions="
        + conditions
        + ", deviceResourceAdvertised="
        + deviceResourceAdvertised
        + ", nodesWithDevice="
        + nodesWithDevice
        + ", observedGeneration="
        + observedGeneration
        + ", dataTransport="
        + dataTransport
        + '}';
  }
}
