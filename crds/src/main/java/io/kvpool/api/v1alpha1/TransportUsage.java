package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/**
 * How a pool's live storage nodes move bytes, as they reported it to the leader when they
 * registered.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TransportUsage {
  @JsonPropertyDescription("Name of the pool (in a TransferEngine's status).")
  private String pool;

  @JsonPropertyDescription("Transport protocol the nodes run: tcp, rdma or ascend.")
  private String protocol;

  @JsonPropertyDescription("Storage nodes the leader counts ALIVE.")
  private Integer storageNodes;

  @JsonPropertyDescription(
      "Devices the nodes opened, as node:backend:id, e.g. p-storage-0:ascend:3.")
  private List<String> devices;

  public String getPool() {
    return pool;
  }

  public void setPool(String pool) {
    this.pool = pool;
  }

  public String getProtocol() {
    return protocol;
  }

  public void setProtocol(String protocol) {
    this.protocol = protocol;
  }

  public Integer getStorageNodes() {
    return storageNodes;
  }

  public void setStorageNodes(Integer storageNodes) {
    this.storageNodes = storageNodes;
  }

  public List<String> getDevices() {
    return devices;
  }

  public void setDevices(List<String> devices) {
    this.devices = devices;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TransportUsage that)) {
      return false;
    }
    return Objects.equals(pool, that.pool)
        && Objects.equals(protocol, that.protocol)
        && Objects.equals(storageNodes, that.storageNodes)
        && Objects.equals(devices, that.devices);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pool, protocol, storageNodes, devices);
  }

  @Override
  public String toString() {
    return "TransportUsage{pool="
        + pool
        + ", protocol="
        + protocol
        + ", storageNodes="
        + storageNodes
        + ", devices="
        + devices
        + "}";
  }
}
