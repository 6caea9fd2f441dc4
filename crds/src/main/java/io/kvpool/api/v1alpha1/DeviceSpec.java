package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.List;
import java.util.Objects;

/**
 * Accelerator devices each storage pod requests from a device plugin. An empty {@code driverMounts}
 * means the Ascend default host paths ({@link DriverMount#ascendDefaults()}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DeviceSpec {
  /** CRD default, stated once (see {@link KvCachePoolSpec}). */
  public static final String DEFAULT_VISIBLE_DEVICES_ENV = "ASCEND_VISIBLE_DEVICES";

  @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
  @Size(max = 317)
  @JsonPropertyDescription(
      "Extended resource advertised by the device plugin, e.g. huawei.com/Ascend910.")
  private String resourceName;

  @Min(1)
  @Max(64)
  @JsonPropertyDescription("Devices requested per storage pod.")
  private Integer count;

  @Size(max = 32)
  @ValidationRule(
      value = "self.all(a, self.exists_one(b, b.name == a.name))",
      message = "driverMounts names must be unique: each becomes a volume of the storage pods",
      reason = "FieldValueInvalid")
  @ValidationRule(
      value = "self.all(a, self.exists_one(b, b.mountPath == a.mountPath))",
      message =
          "driverMounts mountPaths must be unique: a container cannot mount two volumes at one path",
      reason = "FieldValueInvalid")
  @ValidationRule(
      value =
          "self.all(m, !(m.name in ['"
              + ApiLimits.CONFIG_VOLUME
              + "', '"
              + ApiLimits.TMP_VOLUME
              + "', '"
              + ApiLimits.HUGEPAGES_VOLUME
              + "']) && !(m.mountPath in ['"
              + ApiLimits.CONFIG_DIR
              + "', '"
              + ApiLimits.TMP_DIR
              + "', '"
              + ApiLimits.HUGEPAGES_DIR
              + "']))",
      message =
          "driverMounts must not use the names "
              + ApiLimits.CONFIG_VOLUME
              + ", "
              + ApiLimits.TMP_VOLUME
              + " or "
              + ApiLimits.HUGEPAGES_VOLUME
              + " nor the mount paths "
              + ApiLimits.CONFIG_DIR
              + ", "
              + ApiLimits.TMP_DIR
              + " or "
              + ApiLimits.HUGEPAGES_DIR
              + ": the operator mounts its own volumes there",
      reason = "FieldValueForbidden")
  @JsonPropertyDescription(
      "Host paths mounted read-only into storage pods; empty means the Ascend driver defaults.")
  private List<DriverMount> driverMounts;

  @Default(DEFAULT_VISIBLE_DEVICES_ENV)
  @Pattern("^[A-Za-z_][A-Za-z0-9_]*$")
  @Size(max = 128)
  @JsonPropertyDescription("Environment variable that carries the allocated device ids.")
  private String visibleDevicesEnv;

  public String getResourceName() {
    return resourceName;
  }

  public void setResourceName(String resourceName) {
    this.resourceName = resourceName;
  }

  public Integer getCount() {
    return count;
  }

  public void setCount(Integer count) {
    this.count = count;
  }

  public List<DriverMount> getDriverMounts() {
    return driverMounts;
  }

  public void setDriverMounts(List<DriverMount> driverMounts) {
    this.driverMounts = driverMounts;
  }

  public String getVisibleDevicesEnv() {
    return visibleDevicesEnv;
  }

  public void setVisibleDevicesEnv(String visibleDevicesEnv) {
    this.visibleDevicesEnv = visibleDevicesEnv;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof DeviceSpec that)) {
      return false;
    }
    return Objects.equals(resourceName, that.resourceName)
        && Objects.equals(count, that.count)
        && Objects.equals(driverMounts, that.driverMounts)
        && Objects.equals(visibleDevicesEnv, that.visibleDevicesEnv);
  }

  @Override
  public int hashCode() {
    return Objects.hash(resourceName, count, driverMounts, visibleDevicesEnv);
  }

  @Override
  public String toString() {
    return "DeviceSpec{"
        + "resourceName="
        + resourceName
        + ", count="
        + count
        + ", driverMounts="
        + driverMounts
        + ", visibleDevicesEnv="
        + visibleDevicesEnv
        + '}';
  }
}
