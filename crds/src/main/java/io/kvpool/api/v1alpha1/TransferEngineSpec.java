package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/** Desired transfer settings; defaults are applied by the API server. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "self.protocol != 'ascend' || (has(self.devices) && has(self.devices.resourceName)"
            + " && self.devices.resourceName != '' && has(self.devices.count) && self.devices.count >= 1)",
    message =
        "protocol ascend needs spec.devices with a resourceName (e.g. huawei.com/Ascend910)"
            + " and a count of at least 1",
    fieldPath = ".devices",
    reason = "FieldValueRequired")
@ValidationRule(
    value = "self.protocol != 'tcp' || !has(self.devices)",
    message =
        "protocol tcp moves bytes through plain sockets and takes no spec.devices (storage pods would request"
            + " devices they never use): remove spec.devices or set protocol ascend",
    fieldPath = ".devices",
    reason = "FieldValueForbidden")
public class TransferEngineSpec {
  /**
   * CRD defaults, stated once (see {@link KvCachePoolSpec}); {@link #DEFAULT_PROTOCOL} as the CRD
   * spells it.
   */
  public static final String DEFAULT_PROTOCOL = "tcp";

  public static final int DEFAULT_PORT = 50060;

  @Default(DEFAULT_PROTOCOL)
  @JsonPropertyDescription("tcp, rdma or ascend.")
  private TransferProtocol protocol;

  @Default("" + DEFAULT_PORT)
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Port of the transfer endpoint on each storage node.")
  private Integer port;

  @Default("false")
  @JsonPropertyDescription(
      "Run storage pods in the host network namespace (RDMA and some NPU fabrics need it).")
  private Boolean hostNetwork;

  @Default("{}")
  @JsonPropertyDescription("Registered transfer buffers.")
  private BufferPoolSpec bufferPool;

  @JsonPropertyDescription(
      "Device-plugin resource, count, driver mounts and visibility env; required for ascend.")
  private DeviceSpec devices;

  @Pattern(ApiLimits.DURATION_PATTERN)
  @Size(max = ApiLimits.MAX_DURATION)
  @JsonPropertyDescription(
      "Deadline of one transfer, e.g. 2s; it must be shorter than the pools' spec.leaseTtl (the"
          + " read lease must outlive the read it protects) and longer than rdmaRetryTimeout. Checked by the operator's"
          + " preflight (ConfigValid); no transport reads it yet (values move over TCP, see status.dataTransport).")
  private String transferTimeout;

  @Pattern(ApiLimits.DURATION_PATTERN)
  @Size(max = ApiLimits.MAX_DURATION)
  @JsonPropertyDescription(
      "Time the RDMA NIC retries a lost packet before failing the transfer (4.096 us x 2^timeout"
          + " x (retry_cnt + 1) of the queue pair), e.g. 500ms; it must be shorter than transferTimeout. Checked by the"
          + " preflight only.")
  private String rdmaRetryTimeout;

  public TransferProtocol getProtocol() {
    return protocol;
  }

  public void setProtocol(TransferProtocol protocol) {
    this.protocol = protocol;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }

  public Boolean getHostNetwork() {
    return hostNetwork;
  }

  public void setHostNetwork(Boolean hostNetwork) {
    this.hostNetwork = hostNetwork;
  }

  public BufferPoolSpec getBufferPool() {
    return bufferPool;
  }

  public void setBufferPool(BufferPoolSpec bufferPool) {
    this.bufferPool = bufferPool;
  }

  public DeviceSpec getDevices() {
    return devices;
  }

  public void setDevices(DeviceSpec devices) {
    this.devices = devices;
  }

  public String getTransferTimeout() {
    return transferTimeout;
  }

  public void setTransferTimeout(String transferTimeout) {
    this.transferTimeout = transferTimeout;
  }

  public String getRdmaRetryTimeout() {
    return rdmaRetryTimeout;
  }

  public void setRdmaRetryTimeout(String rdmaRetryTimeout) {
    this.rdmaRetryTimeout = rdmaRetryTimeout;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TransferEngineSpec that)) {
      return false;
    }
    return Objects.equals(protocol, that.protocol)
        && Objects.equals(port, that.port)
        && Objects.equals(hostNetwork, that.hostNetwork)
        && Objects.equals(bufferPool, that.bufferPool)
        && Objects.equals(devices, that.devices)
        && Objects.equals(transferTimeout, that.transferTimeout)
        && Objects.equals(rdmaRetryTimeout, that.rdmaRetryTimeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        protocol, port, hostNetwork, bufferPool, devices, transferTimeout, rdmaRetryTimeout);
  }

  @Override
  public String toString() {
    return "TransferEngineSpec{"
        + "protocol="
        + protocol
        + ", port="
        + port
        + ", hostNetwork="
        + hostNetwork
        + ", bufferPool="
        + bufferPool
        + ", devices="
        + devices
        + ", transferTimeout="
        + transferTimeout
        + ", rdmaRetryTimeout="
        + rdmaRetryTimeout
        + '}';
  }
}
