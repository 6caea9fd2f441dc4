package io.kvpool.operator.autoscale;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;

/**
 * The readings of one pool the operator took, oldest first, kept in the operator's memory for the
 * longest window (bounded: at most {@link #MAX_SAMPLES}). An operator restart starts it empty,
 * which only delays a decision by one window. Thread-safe: reconciliations of one pool do not
 * overlap, but the map holding histories is shared.
 */
public final class SignalHistory {
  static final int MAX_SAMPLES = 1024;
  private final ArrayDeque<SignalSample> samples = new ArrayDeque<>();

  public synchronized void record(SignalSample sample, Duration keep) {
    samples.addLast(sample);
    Instant horizon = sample.at().minus(keep);
    while (samples.size() > MAX_SAMPLES) {
      samples.removeFirst();
    }
    // keep one sample at or before the horizon: it proves a window was covered since then
    while (samples.size() > 1) {
      Iterator<SignalSample> oldest = samples.iterator();
      oldest.next();
      if (oldest.next().at().isAfter(horizon)) {
        return;
      }
      samples.removeFirst();
    }
  }

  public synchronized List<SignalSample> samples() {
    return List.copyOf(samples);
  }
}
