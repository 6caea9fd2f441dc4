package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.Objects;

/** Reference to a {@link TransferEngine} in the pool's namespace. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TransferEngineRef {

  @Required
  @Pattern("^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")
  @Size(max = 253)
  @JsonPropertyDescription("Name of the TransferEngine.")
  private String name;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TransferEngineRef that)) {
      return false;
    }
    return Objects.equals(name, that.name);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name);
  }

  @Override
  public String toString() {
    return "TransferEngineRef{" + "name=" + name + '}';
  }
}
