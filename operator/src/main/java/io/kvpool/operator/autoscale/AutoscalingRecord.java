package io.kvpool.operator.autoscale;

import io.kvpool.api.v1alpha1.AutoscalingStatus;
import io.kvpool.api.v1alpha1.ScalingDecision;
import io.kvpool.operator.common.PoolEvent;
import io.kvpool.operator.common.PoolEventReason;
import io.kvpool.operator.common.StatusMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * status.autoscaling after a decision, and its Events; pure. A scaling is an Event ({@code
 * StorageAutoscaled}) and the newest of {@code recentScaling}; finding another writer is an Event
 * ({@code AutoscalingYielded}) once; a hold replaces {@code lastDecision} only when its reason
 * changes, so a steady pool does not rewrite its status.
 */
public final class AutoscalingRecord {
  static final int RECENT = 5;
  public static final String OPERATOR = "Operator";
  public static final String EXTERNAL = "External";

  private AutoscalingRecord() {}

  public static AutoscalingOutcome next(
      AutoscalingStatus previous, ScalingVerdict verdict, Instant now) {
    AutoscalingStatus prev = previous == null ? new AutoscalingStatus() : previous;
    AutoscalingStatus next = new AutoscalingStatus();
    List<PoolEvent> events = new ArrayList<>();
    ScalingDecision entry = entry(verdict, now);
    boolean newExternal =
        "ExternalOwner".equals(verdict.reason())
            && (prev.getDesiredReplicas() != null && prev.getDesiredReplicas() != verdict.from());
    next.setDesiredReplicas(verdict.scales() ? verdict.to() : verdict.from());
    next.setExternalChangeSeen(newExternal ? now.toString() : prev.getExternalChangeSeen());
    next.setOwner("ExternalOwner".equals(verdict.reason()) ? EXTERNAL : OPERATOR);
    next.setRecentScaling(prev.getRecentScaling());
    next.setLastDecision(prev.getLastDecision());
    if (verdict.scales()) {
      List<ScalingDecision> recent = new ArrayList<>();
      recent.add(entry);
      if (prev.getRecentScaling() != null) {
        recent.addAll(
            prev.getRecentScaling()
                .subList(0, Math.min(RECENT - 1, prev.getRecentScaling().size())));
      }
      next.setRecentScaling(recent);
      next.setLastDecision(entry);
      events.add(
          new PoolEvent(
              PoolEventReason.StorageAutoscaled,
              "storage nodes "
                  + verdict.from()
                  + " -> "
                  + verdict.to()
                  + " ("
                  + verdict.reason()
                  + "): "
                  + verdict.message()));
    } else if (prev.getLastDecision() == null
        || !Objects.equals(prev.getLastDecision().getReason(), verdict.reason())) {
      next.setLastDecision(entry);
    }
    if (newExternal) {
      events.add(new PoolEvent(PoolEventReason.AutoscalingYielded, verdict.message()));
    }
    return new AutoscalingOutcome(next, events);
  }

  private static ScalingDecision entry(ScalingVerdict verdict, Instant now) {
    ScalingDecision d = new ScalingDecision();
    d.setTime(now.toString());
    d.setAction(verdict.action().name());
    d.setReason(verdict.reason());
    d.setFromReplicas(verdict.from());
    d.setToReplicas(verdict.to());
    d.setMessage(StatusMessage.bound(verdict.message()));
    verdict
        .latest()
        .ifPresent(
            s -> {
              d.setFullnessPercent(Math.round(1000 * s.fullness()) / 10.0);
              d.setCapacityMissesPerSecond(Math.round(100 * s.capacityMissesPerSecond()) / 100.0);
              d.setEvictedBytesPerSecond(Math.round(s.evictedBytesPerSecond()));
            });
    return d;
  }
}
