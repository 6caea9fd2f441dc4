package io.kvpool.operator.autoscale;

import io.kvpool.api.v1alpha1.AutoscalingStatus;
import io.kvpool.operator.common.PoolEvent;
import java.util.List;

/**
 * What autoscaling wrote in this reconciliation: status.autoscaling and the Events of its decision.
 */
public record AutoscalingOutcome(AutoscalingStatus status, List<PoolEvent> events) {
  public AutoscalingOutcome {
    events = List.copyOf(events);
  }
}
