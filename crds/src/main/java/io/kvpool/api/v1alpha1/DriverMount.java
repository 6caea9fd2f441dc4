package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Objects;

/** A host path of the device driver mounted into storage pods. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverMount {

  /**
   * Mounts used when {@code spec.devices.driverMounts} is empty: what the Ascend runtime needs from
   * the host next to the device files the device plugin injects. Fresh objects on every call.
   */
  public static List<DriverMount> ascendDefaults() {
    return List.of(
        of("ascend-driver", "/usr/local/Ascend/driver"),
        of("ascend-dcmi", "/usr/local/dcmi"),
        of("npu-smi", "/usr/local/bin/npu-smi"),
        of("ascend-install-info", "/etc/ascend_install.info"),
        of("hccn-conf", "/etc/hccn.conf"));
  }

  /** A read-only mount of {@code path} at the same path in the container. */
  public static DriverMount of(String name, String path) {
    DriverMount mount = new DriverMount();
    mount.setName(name);
    mount.setHostPath(path);
    mount.setMountPath(path);
    mount.setReadOnly(true);
    return mount;
  }

  @Required
  @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
  @Size(max = 63)
  @JsonPropertyDescription("Volume name, a DNS label.")
  private String name;

  @Required
  @Pattern("^/[^\\s]*$")
  @Size(max = 512)
  @JsonPropertyDescription("Absolute path on the node, without spaces.")
  private String hostPath;

  @Required
  @Pattern("^/[^\\s]*$")
  @Size(max = 512)
  @JsonPropertyDescription("Absolute path in the container, without spaces.")
  private String mountPath;

  @Default("true")
  @ValidationRule(
      value = "self",
      message =
          "driver mounts are always read-only: a storage pod must not change the node's driver files",
      reason = "FieldValueForbidden")
  @JsonPropertyDescription("Always true: driver host paths are mounted read-only.")
  private Boolean readOnly;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getHostPath() {
    return hostPath;
  }

  public void setHostPath(String hostPath) {
    this.hostPath = hostPath;
  }

  public String getMountPath() {
    return mountPath;
  }

  public void setMountPath(String mountPath) {
    this.mountPath = mountPath;
  }

  public Boolean getReadOnly() {
    return readOnly;
  }

  public void setReadOnly(Boolean readOnly) {
    this.readOnly = readOnly;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof DriverMount that)) {
      return false;
    }
    return Objects.equals(name, that.name)
        && Objects.equals(hostPath, that.hostPath)
        && Objects.equals(mountPath, that.mountPath)
        && Objects.equals(readOnly, that.readOnly);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, hostPath, mountPath, readOnly);
  }

  @Override
  public String toString() {
    return "DriverMount{"
        + "name="
        + name
        + ", hostPath="
        + hostPath
        + ", mountPath="
        + mountPath
        + ", readOnly="
        + readOnly
        + '}';
  }
}
