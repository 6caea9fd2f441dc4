package io.kvpool.operator.autoscale;

import io.kvpool.admin.MasterStatus;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One reading of the leader's cache signals.
 *
 * <p>Fullness is the <em>memory</em> tier's ({@link MasterStatus#memoryTier()}, the figure the
 * pool's status.cacheSignals.fullnessPercent shows), not the pool's over all tiers: a disk tier is
 * where memory evictions go (they move there and stay readable), so a pool with one keeps its
 * memory near the high watermark while the disk absorbs the rest, and the memory tier is what puts
 * and gets are served from. Counting the disk in would let a disk many times the memory hide a
 * memory that spills all the time (80 % of memory plus disk is reached only when the disk is almost
 * full); the disk tier filling up shows as capacity misses (a value dropped from disk is an
 * eviction), which has its own target. The other tiers still hold data: they count in the nodes the
 * data needs ({@link Autoscaler#dataFloor}).
 *
 * @param aliveNodes storage nodes the leader counts ALIVE: a decision waits until they are as many
 *     as the replicas
 * @param usedBytes bytes used in the memory tier
 * @param capacityBytes capacity of the memory tier
 * @param fullness used over capacity of the memory tier, 0..1
 * @param capacityMissesPerSecond misses for keys evicted recently, over the leader's window
 * @param evictedBytesPerSecond bytes evicted per second over the leader's window
 * @param otherTiers the tiers besides memory (a disk tier), each over the live nodes
 */
public record SignalSample(
    Instant at,
    int aliveNodes,
    long usedBytes,
    long capacityBytes,
    double fullness,
    double capacityMissesPerSecond,
    double evictedBytesPerSecond,
    List<MasterStatus.Tier> otherTiers) {

  public SignalSample {
    otherTiers = List.copyOf(otherTiers);
  }

  /**
   * The sample of a serving leader's /status; empty when it reports no signals (an older master, a
   * standby).
   */
  public static Optional<SignalSample> of(MasterStatus status, Instant at) {
    MasterStatus.CacheSignals s = status.cacheSignals();
    if (s == null || !status.serving()) {
      return Optional.empty();
    }
    MasterStatus.Tier memory = status.memoryTier();
    return Optional.of(
        new SignalSample(
            at,
            status.aliveNodes(),
            memory.usedBytes(),
            memory.capacityBytes(),
            memory.fullness(),
            s.capacityMissesPerSecond(),
            s.evictedBytesPerSecond(),
            s.tiers().stream().filter(t -> !memory.name().equals(t.name())).toList()));
  }

  /** Capacity of one node, as the average of the live ones. */
  long nodeCapacityBytes() {
    return aliveNodes == 0 ? 0 : capacityBytes / aliveNodes;
  }

  /** Fullness with {@code nodes} nodes of the average capacity holding the same bytes. */
  double fullnessWith(int nodes) {
    long capacity = nodeCapacityBytes() * nodes;
    return capacity <= 0 ? Double.POSITIVE_INFINITY : (double) usedBytes / capacity;
  }

  /**
   * The fewest nodes of the average capacity that hold every tier's used bytes under {@code
   * watermark} of that tier's capacity: memory, and the data on a disk tier, which leaves with the
   * nodes removed too. 0 without live nodes.
   */
  int nodesFor(double watermark) {
    if (aliveNodes == 0) {
      return 0;
    }
    int nodes = nodesFor(usedBytes, capacityBytes, watermark);
    for (MasterStatus.Tier t : otherTiers) {
      nodes = Math.max(nodes, nodesFor(t.usedBytes(), t.capacityBytes(), watermark));
    }
    return nodes;
  }

  private int nodesFor(long used, long capacity, double watermark) {
    double perNode = (double) (capacity / aliveNodes) * watermark;
    return perNode <= 0 ? 0 : (int) Math.ceil(used / perNode);
  }
}
