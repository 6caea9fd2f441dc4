package io.kvpool.operator.autoscale;

import io.kvpool.api.v1alpha1.AutoscalingSpec;
import io.kvpool.api.v1alpha1.AutoscalingTargets;
import io.kvpool.api.v1alpha1.ScaleDownBehavior;
import io.kvpool.api.v1alpha1.ScaleUpBehavior;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * {@code spec.storage.autoscaling} read once, with the CRD's defaults where an object stored under an older schema
 * lacks a field.
 *
 * @param fullnessTarget used over capacity (0..1) the pool must stay under, if set
 * @param capacityMissTarget capacity misses per second the pool must stay under, if set
 */
public record AutoscalingPolicy(int minReplicas, int maxReplicas, OptionalDouble fullnessTarget,
                                OptionalDouble capacityMissTarget, Duration scaleUpWindow, int scaleUpStep,
                                Duration scaleDownWindow, int scaleDownStep) {

  /** The policy of an enabled spec; empty when autoscaling is off or the spec lacks its bounds. */
  public static Optional<AutoscalingPolicy> of(AutoscalingSpec spec) {
    if (spec == null || !Boolean.TRUE.equals(spec.getEnabled()) || spec.getMinReplicas() == null
        || spec.getMaxReplicas() == null) {
      return Optional.empty();
    }
    AutoscalingTargets targets = spec.getTargets() == null ? new AutoscalingTargets() : spec.getTargets();
    ScaleUpBehavior up = spec.getScaleUp() == null ? new ScaleUpBehavior() : spec.getScaleUp();
    ScaleDownBehavior down = spec.getScaleDown() == null ? new ScaleDownBehavior() : spec.getScaleDown();
    return Optional.of(new AutoscalingPolicy(spec.getMinReplicas(), spec.getMaxReplicas(),
        targets.getFullnessPercent() == null ? OptionalDouble.empty()
            : OptionalDouble.of(targets.getFullnessPercent() / 100.0),
        targets.getCapacityMissesPerSecond() == null ? OptionalDouble.empty()
            : OptionalDouble.of(targets.getCapacityMissesPerSecond()),
        Duration.ofSeconds(or(up.getStabilizationWindowSeconds(), ScaleUpBehavior.DEFAULT_WINDOW_SECONDS)),
        or(up.getMaxStep(), 1),
        Duration.ofSeconds(or(down.getStabilizationWindowSeconds(), ScaleDownBehavior.DEFAULT_WINDOW_SECONDS)),
        or(down.getMaxStep(), 1)));
  }

  private static int or(Integer value, int fallback) {
    return value == null ? fallback : value;
  }

  /** How long the operator holds after another writer changed the replica count: the longer window. */
  public Duration externalOwnerHold() {
    return scaleUpWindow.compareTo(scaleDownWindow) > 0 ? scaleUpWindow : scaleDownWindow;
  }
}
