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

  private final Random random;

  public ReplicaPlacement(Random random) {
    this.random = random;
  }

  /**
   * R distinct ALIVE nodes (not in {@code exclude}) that can each hold {@code size} bytes, or null when fewer than R
   * qualify. Does not allocate.
   */
  public List<StorageNodeRecord> choose(Collection<StorageNodeRecord> nodes, int size, int replicas,
                                        Set<String> exclude) {
    List<StorageNodeRecord> eligible = new ArrayList<>();
    for (StorageNodeRecord n : nodes) {
      if (n.state() == NodeState.ALIVE && !exclude.contains(n.id()) && n.canHold(size)) {
        eligible.add(n);
      }
    }
    if (eligible.size() < replicas) {
      return null;
    }
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
      }
      chosen.add(eligible.remove(pick));
    }
    return chosen;
  }
}
