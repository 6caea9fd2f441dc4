package io.kvpool.bench.ramp;

import io.kvpool.master.PlacementRamp;
import java.time.Duration;

/**
 * What {@code kvpool bench ramp} runs.
 *
 * @param storageNodes storage nodes filled before the empty one joins
 * @param memoryPerNode bytes of memory of every storage node, the new one included
 * @param valueSize bytes per value
 * @param clients client threads putting
 * @param replicas copies per value
 * @param fill the part of the first nodes' memory filled before the new node joins, 0..0.9
 * @param putsPerSecond the steady rate of puts while the new node joins
 * @param interval the length of one measured interval
 * @param duration how long the puts are measured after the new node registered
 * @param ramp the master's placement ramp ({@code --placement-ramp})
 */
public record RampSettings(
    int storageNodes,
    long memoryPerNode,
    int valueSize,
    int clients,
    int replicas,
    double fill,
    int putsPerSecond,
    Duration interval,
    Duration duration,
    PlacementRamp ramp) {

  /** These settings with the master's ramp {@code other}. */
  public RampSettings withRamp(PlacementRamp other) {
    return new RampSettings(
        storageNodes,
        memoryPerNode,
        valueSize,
        clients,
        replicas,
        fill,
        putsPerSecond,
        interval,
        duration,
        other);
  }

  /** The measured intervals: the duration in whole intervals, at least one. */
  public int intervals() {
    return (int) Math.max(1, duration.toMillis() / interval.toMillis());
  }

  /** Puts that fill the first nodes to {@link #fill}. */
  long fillPuts() {
    return (long) (fill * storageNodes * memoryPerNode / ((long) valueSize * replicas));
  }
}
