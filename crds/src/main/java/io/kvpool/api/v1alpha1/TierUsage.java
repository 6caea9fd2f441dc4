package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/**
 * One storage tier's fill as the leader reports it: {@code memory}, and {@code disk} with disk
 * tiers.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class TierUsage {

  @JsonPropertyDescription("The tier: memory, or disk (the storage nodes' disk tiers).")
  private String name;

  private String capacity;

  private String used;

  private Double fullnessPercent;

  @JsonPropertyDescription(
      "Objects the tier holds: memory, those with a replica in memory; disk, those held only by"
          + " disk tiers.")
  private Long objects;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getCapacity() {
    return capacity;
  }

  public void setCapacity(String capacity) {
    this.capacity = capacity;
  }

  public String getUsed() {
    return used;
  }

  public void setUsed(String used) {
    this.used = used;
  }

  public Double getFullnessPercent() {
    return fullnessPercent;
  }

  public void setFullnessPercent(Double fullnessPercent) {
    this.fullnessPercent = fullnessPercent;
  }

  public Long getObjects() {
    return objects;
  }

  public void setObjects(Long objects) {
    this.objects = objects;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof TierUsage that)) {
      return false;
    }
    return Objects.equals(name, that.name)
        && Objects.equals(capacity, that.capacity)
        && Objects.equals(used, that.used)
        && Objects.equals(fullnessPercent, that.fullnessPercent)
        && Objects.equals(objects, that.objects);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, capacity, used, fullnessPercent, objects);
  }

  @Override
  public String toString() {
    return "TierUsage{"
        + "name="
        + name
        + ", "
        + "capacity="
        + capacity
        + ", "
        + "used="
        + used
        + ", "
        + "fullnessPercent="
        + fullnessPercent
        + ", "
        + "objects="
        + objects
        + '}';
  }
}
