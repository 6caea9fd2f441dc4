package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.Objects;

/**
 * The masters' KV events (docs/events.md): what the pool holds, published in vLLM's KV-event format
 * on a ZMQ PUB socket, with a replay socket for subscribers that missed batches. Reached through
 * the {@code <pool>-master} Service, from pods labelled {@code kvpool.io/events-subscriber:
 * <pool>}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!has(self.port) || !has(self.replayPort) || self.port != self.replayPort",
    message =
        "spec.events.port and spec.events.replayPort must differ: both are bound in the master pods",
    fieldPath = ".replayPort",
    reason = "FieldValueInvalid")
public class EventsSpec {
  /** CRD defaults, stated once (see {@link KvCachePoolSpec}). */
  public static final boolean DEFAULT_ENABLED = false;

  public static final int DEFAULT_PORT = 5557;
  public static final int DEFAULT_REPLAY_PORT = 5558;

  /**
   * What a medium or a model name may hold: they are written into events and topics as they are.
   */
  public static final String NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._:/+-]*$";

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Default("" + DEFAULT_ENABLED)
  @JsonPropertyDescription(
      "Publish KV events from the masters (ZMQ PUB + replay ROUTER, vLLM's KV-event format).")
  private Boolean enabled;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Default("" + DEFAULT_PORT)
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("Port of the events' ZMQ PUB socket (Service port `events`).")
  private Integer port;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Default("" + DEFAULT_REPLAY_PORT)
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription(
      "Port of the events' replay ROUTER socket (Service port `events-replay`).")
  private Integer replayPort;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Pattern(NAME_PATTERN)
  @Size(max = 128)
  @JsonPropertyDescription(
      "The medium every event names (vLLM's `medium`); the master uses pool:<pool> when empty.")
  private String medium;

  @SpecDiff(SpecDiff.Impact.RESTART_MASTERS)
  @Pattern(NAME_PATTERN)
  @Size(max = 256)
  @JsonPropertyDescription(
      "The model named in the topic kv@pool:<pool>@<model>, e.g. meta-llama/Llama-3.1-8B; empty by"
          + " default.")
  private String model;

  public Boolean getEnabled() {
    return enabled;
  }

  public void setEnabled(Boolean enabled) {
    this.enabled = enabled;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }

  public Integer getReplayPort() {
    return replayPort;
  }

  public void setReplayPort(Integer replayPort) {
    this.replayPort = replayPort;
  }

  public String getMedium() {
    return medium;
  }

  public void setMedium(String medium) {
    this.medium = medium;
  }

  public String getModel() {
    return model;
  }

  public void setModel(String model) {
    this.model = model;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof EventsSpec that)) {
      return false;
    }
    return Objects.equals(enabled, that.enabled)
        && Objects.equals(port, that.port)
        && Objects.equals(replayPort, that.replayPort)
        && Objects.equals(medium, that.medium)
        && Objects.equals(model, that.model);
  }

  @Override
  public int hashCode() {
    return Objects.hash(enabled, port, replayPort, medium, model);
  }

  @Override
  public String toString() {
    return "EventsSpec{enabled="
        + enabled
        + ", port="
        + port
        + ", replayPort="
        + replayPort
        + ", medium="
        + medium
        + ", model="
        + model
        + "}";
  }
}
