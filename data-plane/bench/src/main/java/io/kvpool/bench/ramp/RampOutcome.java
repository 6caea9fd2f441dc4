package io.kvpool.bench.ramp;

import io.kvpool.master.PlacementRamp;
import java.util.Locale;

/**
 * What one {@code kvpool bench ramp} run found.
 *
 * @param ramp the master's placement ramp in the run
 * @param passed every put was acknowledged and the new node received replicas
 * @param maxRatio the largest share over fair share of any node in any interval after the join, NaN
 *     when no interval had an eligible node
 * @param node the node that had it
 * @param interval the interval it was in, from 1
 */
public record RampOutcome(
    PlacementRamp ramp, boolean passed, double maxRatio, String node, int interval) {

  /** The process exit code: 1 when a check failed. */
  public int exitCode() {
    return passed ? 0 : 1;
  }

  /** e.g. {@code ramp on: max share/fair share 1.50 (node-4, interval 6)}. */
  public String line() {
    return String.format(
        Locale.ROOT,
        "ramp %s: max share/fair share %.2f (%s, interval %d)",
        ramp.name().toLowerCase(Locale.ROOT),
        maxRatio,
        node,
        interval);
  }
}
