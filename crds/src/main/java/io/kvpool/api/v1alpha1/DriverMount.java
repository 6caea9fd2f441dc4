package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import java.util.Objects;

/** A host path of the device driver mounted into storage pods. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverMount {

    @Required
    @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
    @JsonPropertyDescription("Volume name, a DNS label.")
    private String name;

    @Required
    @Pattern("^/.*")
    @JsonPropertyDescription("Absolute path on the node.")
    private String hostPath;

    @Required
    @Pattern("^/.*")
    @JsonPropertyDescription("Absolute path in the container.")
    private String mountPath;

    @Default("true")
    @JsonPropertyDescription("Mount read-only (the default).")
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
        return Objects.equals(name, that.name) &&
                Objects.equals(hostPath, that.hostPath) &&
                Objects.equals(mountPath, that.mountPath) &&
                Objects.equals(readOnly, that.readOnly);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, hostPath, mountPath, readOnly);
    }

    @Override
    public String toString() {
        return "DriverMount{" +
                "name=" + name +
                ", hostPath=" + hostPath +
                ", mountPath=" + mountPath +
                ", readOnly=" + readOnly +
                '}';
    }
}
