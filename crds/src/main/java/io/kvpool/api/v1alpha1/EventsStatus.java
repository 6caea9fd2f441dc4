package io.kvpool.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** The leader's KV events, as its /status reports them (docs/events.md). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class EventsStatus {
  @JsonPropertyDescription(
      "The ZMQ topic of every batch, kv@pool:<pool>@<model>; subscribe to it or a prefix.")
  private String topic;

  @JsonPropertyDescription(
      "Sequence of the last batch the leader published; never goes back across a failover.")
  private Long sequence;

  @JsonPropertyDescription(
      "Residency changes the leader dropped because its event queue was full, since it started"
          + " (healed by a full re-announcement).")
  private Long dropped;

  public String getTopic() {
    return topic;
  }

  public void setTopic(String topic) {
    this.topic = topic;
  }

  public Long getSequence() {
    return sequence;
  }

  public void setSequence(Long sequence) {
    this.sequence = sequence;
  }

  public Long getDropped() {
    return dropped;
  }

  public void setDropped(Long dropped) {
    this.dropped = dropped;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof EventsStatus that)) {
      return false;
    }
    return Objects.equals(topic, that.topic)
        && Objects.equals(sequence, that.sequence)
        && Objects.equals(dropped, that.dropped);
  }

  @Override
  public int hashCode() {
    return Objects.hash(topic, sequence, dropped);
  }

  @Override
  public String toString() {
    return "EventsStatus{topic=" + topic + ", sequence=" + sequence + ", dropped=" + dropped + "}";
  }
}
