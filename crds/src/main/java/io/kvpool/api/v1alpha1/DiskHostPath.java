package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** A disk tier in a folder of the node, kept across pod replacement on that node. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DiskHostPath {

  @SpecDiff(SpecDiff.Impact.RESTART_STORAGE)
  @Required
  @Pattern(ApiLimits.HOST_PATH_PATTERN)
  @Size(max = 512)
  @JsonPropertyDescription(
      "Node folder of the tiers, e.g. /mnt/nvme/kvpool; each pod keeps its files in"
          + " <path>/<namespace>/<pool>/<pod>. Needs the namespace's Pod Security level to allow"
          + " hostPath volumes (privileged) and the folder writable by uid 65532.")
  private String path;

  public String getPath() {
    return path;
  }

  public void setPath(String path) {
    this.path = path;
  }

  @Override
  public boolean equals(Object o) {
    return this == o || (o instanceof DiskHostPath that && Objects.equals(path, that.path));
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(path);
  }

  @Override
  public String toString() {
    return "DiskHostPath{path=" + path + '}';
  }
}
