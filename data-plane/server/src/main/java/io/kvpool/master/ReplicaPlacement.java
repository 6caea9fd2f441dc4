package io.kvpool.master;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Chooses nodes for new replicas with "power of two choices": sample two eligible nodes, take the
 * one with the larger free ratio. Load flows towards emptier nodes, placement stays O(1) per
 * replica, and an empty node is not handed every new put (always picking the emptiest node is a
 * known hotspot).
 *
 * <p>The share cap: an emptiest node still wins every comparison it is sampled into, which is twice
 * a fair share with many nodes, and a node that joined empty would take that until it caught up. So
 * a node that took more than its cap of the placements of the last {@link #SHARE_WINDOW} (once that
 * window holds at least {@link #MIN_PLACEMENTS_FOR_CAP}) loses a comparison to a node under its own
 * cap. The cap is a multiple of its fair share (its part of the eligible nodes' capacity): 1 when
 * it registered, growing to {@link #MAX_SHARE} over {@link #RAMP}. A node that joins or comes back
 * empty takes about a fair share at first and up to 1.5 times it once warm, so it fills up without
 * becoming the pool's hotspot. With {@link PlacementRamp#OFF} there is no cap: power of two choices
 * alone.
 */
public final class ReplicaPlacement {
  /**
   * How long the share cap of a newly registered node takes to grow from its fair share to {@link
   * #MAX_SHARE}.
   */
  public static final Duration RAMP = Duration.ofSeconds(60);

  /**
   * The share cap of a warm node: most of its fair share of recent placements it keeps winning
   * comparisons with.
   */
  public static final double MAX_SHARE = 1.5;

  public static final Duration SHARE_WINDOW = Duration.ofSeconds(10);
  static final int MIN_PLACEMENTS_FOR_CAP = 100;

  private final Random random;
  private final PlacementRamp ramp;
  private final RecentPlacements recent = new RecentPlacements(SHARE_WINDOW);

  public ReplicaPlacement(Random random, PlacementRamp ramp) {
    this.random = random;
    this.ramp = ramp;
  }

  /**
   * R distinct ALIVE nodes (not in {@code exclude}) that can each hold {@code size} bytes, or null
   * when fewer than R qualify. Does not allocate. {@code nowMillis}: master time, for the ramp of
   * newly registered nodes.
   */
  public List<StorageNodeRecord> choose(
      Collection<StorageNodeRecord> nodes,
      int size,
      int replicas,
      Set<String> exclude,
      long nowMillis) {
    List<StorageNodeRecord> eligible = new ArrayList<>();
    for (StorageNodeRecord n : nodes) {
      if (n.state() == NodeState.ALIVE && !exclude.contains(n.id()) && n.canHold(size)) {
        eligible.add(n);
      }
    }
    if (eligible.size() < replicas) {
      return null;
    }
    long capacity = 0;
    for (StorageNodeRecord n : eligible) {
      capacity += n.capacityBytes();
    }
    long placed = recent.total(nowMillis);
    List<StorageNodeRecord> chosen = new ArrayList<>(replicas);
    for (int i = 0; i < replicas; i++) {
      int a = random.nextInt(eligible.size());
      int pick = a;
      if (eligible.size() > 1) {
        int b = random.nextInt(eligible.size() - 1);
        if (b >= a) {
          b++;
        }
        pick = eligible.get(b).freeRatio() > eligible.get(a).freeRatio() ? b : a;
        int other = pick == a ? b : a;
        if (overShare(eligible.get(pick), capacity, placed, nowMillis)
            && !overShare(eligible.get(other), capacity, placed, nowMillis)) {
          pick = other;
        }
      }
      chosen.add(eligible.remove(pick));
    }
    for (StorageNodeRecord n : chosen) {
      recent.record(n.id(), nowMillis);
    }
    return chosen;
  }

  private boolean overShare(StorageNodeRecord n, long capacity, long placed, long nowMillis) {
    if (ramp == PlacementRamp.OFF || placed < MIN_PLACEMENTS_FOR_CAP || capacity == 0) {
      return false;
    }
    double fair = (double) n.capacityBytes() / capacity;
    return recent.of(n.id(), nowMillis) + 1
        > shareCap(nowMillis - n.registeredAtMillis()) * fair * (placed + 1);
  }

  /**
   * The share cap of a node {@code ageMillis} after it registered, as a multiple of its fair share.
   */
  static double shareCap(long ageMillis) {
    double warmth = Math.min(1, Math.max(0, (double) ageMillis / RAMP.toMillis()));
    return 1 + (MAX_SHARE - 1) * warmth;
  }
}
