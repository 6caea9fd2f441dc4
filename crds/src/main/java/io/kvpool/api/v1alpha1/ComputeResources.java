package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.Objects;

/**
 * Requests and limits of a data-plane container, in the shape of a Kubernetes ResourceRequirements
 * (without dynamic resource claims) but checked by the API server: a container the operator renders
 * from it must be a valid container, or the StatefulSet would be refused after the pool's other
 * objects were created.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.requests) || !has(self.limits) || ("
            + ComputeResources.NOT_ABOVE_LIMIT_CPU
            + " && "
            + ComputeResources.NOT_ABOVE_LIMIT_MEMORY
            + ")",
    message = "the cpu and memory requests must not exceed the limits of the same resource",
    fieldPath = ".requests",
    reason = "FieldValueInvalid")
public class ComputeResources {
  // Rules name the keys they read: a rule iterating over a map of unbounded strings exceeds the API
  // server's cost
  // budget. Other resources are checked by the operator's dry run of the StatefulSets before
  // anything is created.
  static final String NOT_ABOVE_LIMIT_CPU =
      "(!('cpu' in self.requests) || !('cpu' in self.limits)"
          + " || !isQuantity(string(self.requests['cpu'])) || !isQuantity(string(self.limits['cpu']))"
          + " || quantity(string(self.requests['cpu'])).compareTo(quantity(string(self.limits['cpu']))) <= 0)";
  static final String NOT_ABOVE_LIMIT_MEMORY =
      "(!('memory' in self.requests) || !('memory' in self.limits)"
          + " || !isQuantity(string(self.requests['memory'])) || !isQuantity(string(self.limits['memory']))"
          + " || quantity(string(self.requests['memory'])).compareTo(quantity(string(self.limits['memory']))) <= 0)";
  private static final String AMOUNTS =
      "(!('cpu' in self) || isQuantity(string(self['cpu'])))"
          + " && (!('memory' in self) || (isQuantity(string(self['memory']))"
          + " && quantity(string(self['memory'])).isInteger()"
          + " && quantity(string(self['memory'])).compareTo(quantity('"
          + ApiLimits.MAX_CONTAINER_MEMORY
          + "')) <= 0))";
  private static final String AMOUNTS_MESSAGE =
      "cpu must be a quantity such as 500m or 2, and memory a whole number"
          + " of bytes of at most "
          + ApiLimits.MAX_CONTAINER_MEMORY
          + ", such as 2Gi";

  @Size(max = 16)
  @ValidationRule(value = AMOUNTS, message = AMOUNTS_MESSAGE, reason = "FieldValueInvalid")
  @JsonPropertyDescription("Minimum amounts the container is scheduled with, e.g. cpu: 500m.")
  private Map<String, Quantity> requests;

  @Size(max = 16)
  @ValidationRule(value = AMOUNTS, message = AMOUNTS_MESSAGE, reason = "FieldValueInvalid")
  @JsonPropertyDescription("Maximum amounts the container may use, e.g. memory: 2Gi.")
  private Map<String, Quantity> limits;

  public static ComputeResources of(Map<String, Quantity> requests, Map<String, Quantity> limits) {
    ComputeResources resources = new ComputeResources();
    resources.setRequests(requests);
    resources.setLimits(limits);
    return resources;
  }

  public Map<String, Quantity> getRequests() {
    return requests;
  }

  public void setRequests(Map<String, Quantity> requests) {
    this.requests = requests;
  }

  public Map<String, Quantity> getLimits() {
    return limits;
  }

  public void setLimits(Map<String, Quantity> limits) {
    this.limits = limits;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ComputeResources that)) {
      return false;
    }
    return Objects.equals(requests, that.requests) && Objects.equals(limits, that.limits);
  }

  @Override
  public int hashCode() {
    return Objects.hash(requests, limits);
  }

  @Override
  public String toString() {
    return "ComputeResources{requests=" + requests + ", limits=" + limits + '}';
  }
}
