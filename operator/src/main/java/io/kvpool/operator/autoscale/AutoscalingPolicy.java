package io.kvpool.operator.autoscale;

import io.kvpool.api.v1alpha1.AutoscalingSpec;
import io.kvpool.api.v1alpha1.AutoscalingTargets;
import io.kvpool.api.v1alpha1.ScaleDownBehavior;
import io.kvpool.api.v1alpha1.ScaleUpBehavior;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * {@code spec.storage.autoscaling} read once, with the CRD's defaults where an object stored under
 * an older schema lacks a field.
 *
 * @param fullnessTarget used over capacity (0..1) the pool must stay under, if set
 * @param capacityMissTarget capacity misses per second the pool must stay under, if set
 */
public record AutoscalingPolicy(
    int minReplicas,
    int maxReplicas,
    OptionalDouble fullnessTarget,
    OptionalDouble capacityMissTarget,
    Duration scaleUpWindow,
    int scaleUpStep,
    Duration scaleDownWindow,
    int scaleDownStep) {

  /** The policy of an enabled spec; empty when autoscaling is off or the spec lacks its bounds. */
  public static Optional<AutoscalingPolicy> of(AutoscalingSpec spec) {
    if (spec == null
        || !Boolean.TRUE.equals(spec.getEnabled())
        || spec.getMinReplicas() == null
        || spec.getMaxReplicas() == null) {
      return Optional.empty();
    }
    AutoscalingTargets targets =
        spec.getTargets() == null ? new AutoscalingTargets() : spec.getTargets();
    ScaleUpBehavior up = spec.getScaleUp() == null ? new ScaleUpBehavior() : spec.getScaleUp();
    ScaleDownBehavior down =
        spec.getScaleDown() == null ? new ScaleDownBehavior() : spec.getScaleDown();
    return Optional.of(
        new AutoscalingPolicy(
            spec.getMinReplicas(),
            spec.getMaxReplicas(),
            targets.getFullnessPercent() == null
                ? OptionalDouble.empty()
                : OptionalDouble.of(targets.getFullnessPercent() / 100.0),
            targets.getCapacityMissesPerSecond() == null
                ? OptionalDouble.empty()
                : OptionalDouble.of(targets.getCapacityMissesPerSecond()),
            Duration.ofSeconds(
                or(up.getStabilizationWindowSeconds(), ScaleUpBehavior.DEFAULT_WINDOW_SECONDS)),
            or(up.getMaxStep(), 1),
            Duration.ofSeconds(
                or(down.getStabilizationWindowSeconds(), ScaleDownBehavior.DEFAULT_WINDOW_SECONDS)),
            or(down.getMaxStep(), 1)));
  }

  private static int or(Integer value, int fallback) {
    return value == null ? fallback : value;
  }

  /**
   * The shortest hold after another writer's change: longer than an HPA's (15 s) or KEDA's (30 s)
   * sync period.
   */
  static final Duration MIN_EXTERNAL_HOLD = Duration.ofMinutes(5);

  /**
   * How long the operator holds after another writer changed the replica count: the longer window,
   * at least {@link #MIN_EXTERNAL_HOLD}, so that a scaler that writes now and then is not fought.
   */
  public Duration externalOwnerHold() {
    Duration longer =
        scaleUpWindow.compareTo(scaleDownWindow) > 0 ? scaleUpWindow : scaleDownWindow;
    return longer.compareTo(MIN_EXTERNAL_HOLD) > 0 ? longer : MIN_EXTERNAL_HOLD;
  }
}
