package io.kvpool.operator.status;

import io.kvpool.admin.MasterStatus;
import io.kvpool.api.v1alpha1.EventsStatus;

/** status.events from the leader's /status: its topic, last published sequence and drops. */
final class EventsView {
  private EventsView() {}

  /** Null for a leader that publishes no events. */
  static EventsStatus of(MasterStatus.Events e) {
    if (e == null) {
      return null;
    }
    EventsStatus out = new EventsStatus();
    out.setTopic(e.topic());
    out.setSequence(e.sequence());
    out.setDropped(e.dropped());
    return out;
  }
}
