package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Objects;

/** The pool's cache signals from the leader, over its window; what the autoscaler reads. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CacheSignalsStatus {

  @JsonPropertyDescription("The window the rates are taken over.")
  private Integer windowSeconds;

  private List<TierUsage> tiers;

  @JsonPropertyDescription(
      "Used over capacity of the memory tier, in percent: the fullness the autoscaler decides on."
          + " A disk tier is left out (memory spills into it, so memory stays near the high"
          + " watermark by design); its figure is in tiers.")
  private Double fullnessPercent;

  private Long evictedBytesPerSecond;

  private Double missesPerSecond;

  @JsonPropertyDescription(
      "Misses for keys the pool evicted recently, per second: the pool was too small for them.")
  private Double capacityMissesPerSecond;

  private Double missRatio;

  public Integer getWindowSeconds() {
    return windowSeconds;
  }

  public void setWindowSeconds(Integer windowSeconds) {
    this.windowSeconds = windowSeconds;
  }

  public List<TierUsage> getTiers() {
    return tiers;
  }

  public void setTiers(List<TierUsage> tiers) {
    this.tiers = tiers;
  }

  public Double getFullnessPercent() {
    return fullnessPercent;
  }

  public void setFullnessPercent(Double fullnessPercent) {
    this.fullnessPercent = fullnessPercent;
  }

  public Long getEvictedBytesPerSecond() {
    return evictedBytesPerSecond;
  }

  public void setEvictedBytesPerSecond(Long evictedBytesPerSecond) {
    this.evictedBytesPerSecond = evictedBytesPerSecond;
  }

  public Double getMissesPerSecond() {
    return missesPerSecond;
  }

  public void setMissesPerSecond(Double missesPerSecond) {
    this.missesPerSecond = missesPerSecond;
  }

  public Double getCapacityMissesPerSecond() {
    return capacityMissesPerSecond;
  }

  public void setCapacityMissesPerSecond(Double capacityMissesPerSecond) {
    this.capacityMissesPerSecond = capacityMissesPerSecond;
  }

  public Double getMissRatio() {
    return missRatio;
  }

  public void setMissRatio(Double missRatio) {
    this.missRatio = missRatio;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CacheSignalsStatus that)) {
      return false;
    }
    return Objects.equals(windowSeconds, that.windowSeconds)
        && Objects.equals(tiers, that.tiers)
        && Objects.equals(fullnessPercent, that.fullnessPercent)
        && Objects.equals(evictedBytesPerSecond, that.evictedBytesPerSecond)
        && Objects.equals(missesPerSecond, that.missesPerSecond)
        && Objects.equals(capacityMissesPerSecond, that.capacityMissesPerSecond)
        && Objects.equals(missRatio, that.missRatio);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        windowSeconds,
        tiers,
        fullnessPercent,
        evictedBytesPerSecond,
        missesPerSecond,
        capacityMissesPerSecond,
        missRatio);
  }

  @Override
  public String toString() {
    return "CacheSignalsStatus{"
        + "windowSeconds="
        + windowSeconds
        + ", "
        + "tiers="
        + tiers
        + ", "
        + "fullnessPercent="
        + fullnessPercent
        + ", "
        + "evictedBytesPerSecond="
        + evictedBytesPerSecond
        + ", "
        + "missesPerSecond="
        + missesPerSecond
        + ", "
        + "capacityMissesPerSecond="
        + capacityMissesPerSecond
        + ", "
        + "missRatio="
        + missRatio
        + '}';
  }
}
