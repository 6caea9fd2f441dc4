package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/**
 * Warm restarts of storage nodes: segments in memory files on a node-local tmpfs (or hugetlbfs)
 * folder that outlives the pod, so that a pod replaced on the same node adopts its replicas instead
 * of the pool copying them.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class WarmRestartSpec {
  /** CRD default, stated once (see {@link KvCachePoolSpec}). */
  public static final String DEFAULT_HOST_PATH = "/dev/shm/kvpool";

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Default("false")
  @JsonPropertyDescription(
      "Keep storage segments in memory files under hostPath on each node. Needs the namespace's"
          + " Pod Security level to allow hostPath volumes (privileged) and the folder writable by uid 65532.")
  private Boolean enabled;

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Default(DEFAULT_HOST_PATH)
  @Pattern("^/[^\\s]*$")
  @Size(max = 512)
  @JsonPropertyDescription(
      "Node folder on tmpfs (or hugetlbfs for explicit huge pages); each pod keeps its files in"
          + " <hostPath>/<namespace>/<pool>/<pod>.")
  private String hostPath;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public String getHostPath() {
    return hostPath;
  }

  public void setHostPath(String hostPath) {
    this.hostPath = hostPath;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof WarmRestartSpec that)) {
      return false;
    }
    return Objects.equals(enabled, that.enabled) && Objects.equals(hostPath, that.hostPath);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, hostPath);
  }

  @Override
  public String toString() {
    return "WarmRestartSpec{enabled=" + enabled + ", hostPath=" + hostPath + '}';
  }
}
