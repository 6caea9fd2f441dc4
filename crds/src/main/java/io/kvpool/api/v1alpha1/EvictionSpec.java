package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import java.util.Objects;

/** Eviction policy of the master: approximate LRU above a usage watermark. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EvictionSpec {
  /** CRD defaults, stated once (see {@link KvCachePoolSpec}). */
  public static final double DEFAULT_HIGH_WATERMARK = 0.9;

  public static final double DEFAULT_EVICT_RATIO = 0.1;

  @SpecDiff(SpecDiff.Impact.LIVE)
  @Default("" + DEFAULT_HIGH_WATERMARK)
  @Min(value = 0, inclusive = false)
  @Max(1)
  @JsonPropertyDescription("Used fraction of capacity, in (0, 1], above which the master evicts.")
  private Double highWatermark;

  @SpecDiff(SpecDiff.Impact.LIVE)
  @Default("" + DEFAULT_EVICT_RATIO)
  @Min(value = 0, inclusive = false)
  @Max(1)
  @JsonPropertyDescription("Fraction of objects, in (0, 1], evicted per eviction round.")
  private Double evictRatio;

  public Double getHighWatermark() {
    return highWatermark;
  }

  public void setHighWatermark(Double highWatermark) {
    this.highWatermark = highWatermark;
  }

  public Double getEvictRatio() {
    return evictRatio;
  }

  public void setEvictRatio(Double evictRatio) {
    this.evictRatio = evictRatio;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof EvictionSpec that)) {
      return false;
    }
    return Objects.equals(highWatermark, that.highWatermark)
        && Objects.equals(evictRatio, that.evictRatio);
  }

  @Override
  public int hashCode() {
    return Objects.hash(highWatermark, evictRatio);
  }

  @Override
  public String toString() {
    return "EvictionSpec{" + "highWatermark=" + highWatermark + ", evictRatio=" + evictRatio + '}';
  }
}
