package io.kvpool.client;

/**
 * Pool totals as the master reports them; {@code nodes} counts live (ALIVE or DRAINING) storage
 * nodes. {@code capacityBytes} and {@code usedBytes} are the memory tier's.
 *
 * @param disk the disk tiers of the nodes that are not dead; {@link DiskTier#NONE} in a pool
 *     without disk tiers and from a master of protocol 2.4, which does not report them
 */
public record PoolStats(
    long capacityBytes, long usedBytes, long objects, int nodes, DiskTier disk) {

  /**
   * The storage nodes' disk tiers, summed: their caps, the bytes their files occupy on disk (what
   * the caps bound), how many nodes have one and how many of those are degraded (writes failing).
   */
  public record DiskTier(long capacityBytes, long usedBytes, int nodes, int degradedNodes) {
    public static final DiskTier NONE = new DiskTier(0, 0, 0, 0);
  }
}
