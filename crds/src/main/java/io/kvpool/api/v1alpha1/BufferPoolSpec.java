package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Objects;

/** Transfer buffers registered once per process, so transfers need no per-request allocation. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class BufferPoolSpec {
  /** CRD defaults, stated once (see {@link KvCachePoolSpec}). */
  public static final String DEFAULT_SIZE = "256Mi";

  public static final int DEFAULT_BUFFERS = 8;

  @Default(DEFAULT_SIZE)
  @ValidationRule(
      value =
          "isQuantity(string(self)) && quantity(string(self)).isInteger()"
              + " && quantity(string(self)).compareTo(quantity('1Mi')) >= 0"
              + " && quantity(string(self)).compareTo(quantity('64Gi')) <= 0",
      message =
          "spec.bufferPool.size must be a whole number of bytes from 1Mi to 64Gi, such as 256Mi",
      reason = "FieldValueInvalid")
  @JsonPropertyDescription("Total size of the buffer pool, 1Mi to 64Gi, e.g. 256Mi.")
  private Quantity size;

  @Default("" + DEFAULT_BUFFERS)
  @Min(1)
  @Max(4096)
  @JsonPropertyDescription("Number of buffers the size is split into.")
  private Integer buffers;

  public Quantity getSize() {
    return size;
  }

  public void setSize(Quantity size) {
    this.size = size;
  }

  public Integer getBuffers() {
    return buffers;
  }

  public void setBuffers(Integer buffers) {
    this.buffers = buffers;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof BufferPoolSpec that)) {
      return false;
    }
    return Objects.equals(size, that.size) && Objects.equals(buffers, that.buffers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(size, buffers);
  }

  @Override
  public String toString() {
    return "BufferPoolSpec{" + "size=" + size + ", buffers=" + buffers + '}';
  }
}
