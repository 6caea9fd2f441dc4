package io.kvpool.master;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Chooses nodes for new replicas with "power of two choices": sample two eligible nodes, take the one with the
 * larger free ratio. Load still flows towards emptier nodes, but an empty (re)started node is not handed every new
 * put (always picking the emptiest node is a known hotspot), and placement stays O(1) per replica.
 */
public final class ReplicaPlacement {
  /** A chosen node and segment. */
  public record Choice(StorageNodeRecord node, StorageSegment segment) {
  }

  private final Random random;

  public ReplicaPlacement(Random random) {
    this.random = random;
  }

  /**
   * R distinct ALIVE nodes (not in {@code exclude}) each with a segment that fits {@code length}, or null when fewer
   * than R qualify. Does not allocate.
   */
  public List<Choice> choose(Collection<StorageNodeRecord> nodes, long length, int replicas, Set<String> exclude) {
    List<Choice> eligible = new ArrayList<>();
    for (StorageNodeRecord n : nodes) {
      if (n.state() == NodeState.ALIVE && !exclude.contains(n.id())) {
        StorageSegment s = n.segmentFor(length);
        if (s != null) {
          eligible.add(new Choice(n, s));
        }
      }
    }
    if (eligible.size() < replicas) {
      return null;
    }
    List<Choice> chosen = new ArrayList<>(replicas);
    for (int i = 0; i < replicas; i++) {
      int a = random.nextInt(eligible.size());
      int pick = a;
      if (eligible.size() > 1) {
        int b = random.nextInt(eligible.size() - 1);
        if (b >= a) {
          b++;
        }
        pick = eligible.get(b).node().freeRatio() > eligible.get(a).node().freeRatio() ? b : a;
      }
      chosen.add(eligible.remove(pick));
    }
    return chosen;
  }
}
