package io.kvpool.bench.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The soak's faults, drawn from one seed: a pure function of the seed and the pool's shape, so a
 * run that found something is replayed step for step with {@code --seed}. The kinds come in rounds,
 * each a seeded shuffle of every enabled kind, so a long run hits each kind as often as the others
 * and a short one still sees a variety; targets, durations and pauses are drawn per step. How many
 * steps a run gets depends on how long each takes to heal, so the schedule is an endless sequence
 * and the log names each step's number.
 */
public final class FaultSchedule {

  /** Bounds the schedule draws from; durations scale with the pool's own timings. */
  public record Shape(
      int storageNodes,
      int masters,
      Duration nodeTtl,
      Duration electionLease,
      Duration pauseMin,
      Duration pauseMax) {
    public Shape {
      if (storageNodes < 1 || masters < 1) {
        throw new IllegalArgumentException("a pool needs a master and a storage node");
      }
      if (pauseMin.isNegative() || pauseMax.compareTo(pauseMin) < 0) {
        throw new IllegalArgumentException(
            "pause bounds " + pauseMin + ".." + pauseMax + " are not a range");
      }
    }
  }

  private final SplittableRandom random;
  private final Shape shape;
  private final List<FaultKind> kinds;
  private final List<FaultKind> round = new ArrayList<>();
  private int step;

  public FaultSchedule(long seed, Shape shape, Set<FaultKind> enabled) {
    if (enabled.isEmpty()) {
      throw new IllegalArgumentException("no fault kind enabled");
    }
    this.random = new SplittableRandom(seed);
    this.shape = shape;
    List<FaultKind> usable = new ArrayList<>();
    for (FaultKind k : EnumSet.copyOf(enabled)) {
      if (shape.masters() > 1
          || !(k == FaultKind.KILL_STANDBY
              || k == FaultKind.STOP_STANDBY
              || k == FaultKind.STEP_DOWN)) {
        usable.add(k);
      }
    }
    if (usable.isEmpty()) {
      throw new IllegalArgumentException(
          "the faults " + enabled + " need standby masters; this pool has one master");
    }
    this.kinds = List.copyOf(usable);
  }

  /** The next step. */
  public Fault next() {
    if (round.isEmpty()) {
      round.addAll(kinds);
      for (int i = round.size() - 1; i > 0; i--) { // Fisher-Yates with the schedule's own generator
        int j = random.nextInt(i + 1);
        round.set(j, round.set(i, round.get(j)));
      }
    }
    FaultKind kind = round.remove(round.size() - 1);
    step++;
    Duration pause = between(shape.pauseMin(), shape.pauseMax());
    long variant = random.nextLong();
    return switch (kind) {
      case KILL_NODE, RESTART_NODE, DRAIN_NODE ->
          new Fault(step, kind, anyNode(), Duration.ZERO, pause, variant);
      // frozen for up to 1.5 node TTLs: about a third of the stops outlive the TTL and the node is
      // declared dead
      case STOP_NODE ->
          new Fault(
              step,
              kind,
              anyNode(),
              between(Duration.ofSeconds(1), shape.nodeTtl().multipliedBy(3).dividedBy(2)),
              pause,
              variant);
      case KILL_LEADER, STEP_DOWN ->
          new Fault(step, kind, Target.LEADER, Duration.ZERO, pause, variant);
      case KILL_STANDBY -> new Fault(step, kind, anyStandby(), Duration.ZERO, pause, variant);
      // up to 1.5 election leases: some stops let a standby take over while the old leader is
      // frozen
      case STOP_LEADER ->
          new Fault(
              step,
              kind,
              Target.LEADER,
              between(Duration.ofSeconds(1), shape.electionLease().multipliedBy(3).dividedBy(2)),
              pause,
              variant);
      case STOP_STANDBY ->
          new Fault(
              step,
              kind,
              anyStandby(),
              between(Duration.ofSeconds(1), shape.electionLease()),
              pause,
              variant);
      case CUT_CONNECTIONS -> new Fault(step, kind, anyServer(), Duration.ZERO, pause, variant);
      case EXHAUST_BUDGET ->
          new Fault(
              step,
              kind,
              anyServer(),
              between(Duration.ofSeconds(2), Duration.ofSeconds(8)),
              pause,
              variant);
      case EVICTION_BURST -> new Fault(step, kind, Target.NONE, Duration.ZERO, pause, variant);
    };
  }

  /**
   * The first {@code n} steps of a fresh schedule with this seed (for the log's preview and tests).
   */
  public static List<Fault> preview(long seed, Shape shape, Set<FaultKind> enabled, int n) {
    FaultSchedule s = new FaultSchedule(seed, shape, enabled);
    List<Fault> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(s.next());
    }
    return out;
  }

  private Target anyNode() {
    return Target.node(random.nextInt(shape.storageNodes()));
  }

  private Target anyStandby() {
    return Target.standby(random.nextInt(shape.masters() - 1));
  }

  /** The leader, a standby (when there are any) or a storage node, each role about as often. */
  private Target anyServer() {
    int roles = shape.masters() > 1 ? 3 : 2;
    return switch (random.nextInt(roles)) {
      case 0 -> anyNode();
      case 1 -> Target.LEADER;
      default -> anyStandby();
    };
  }

  /** Uniform in [min, max], to the millisecond. */
  private Duration between(Duration min, Duration max) {
    long span = max.toMillis() - min.toMillis();
    return min.plusMillis(span <= 0 ? 0 : random.nextLong(span + 1));
  }
}
