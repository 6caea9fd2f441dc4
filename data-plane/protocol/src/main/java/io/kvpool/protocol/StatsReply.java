package io.kvpool.protocol;

/**
 * Master -> client: pool totals and the master's state; from protocol 2.5 also the disk tiers'
 * totals (see {@link DiskTotals}).
 */
public record StatsReply(
    long capacityBytes,
    long usedBytes,
    long objects,
    int aliveNodes,
    ServerState state,
    DiskTotals disk) {

  /** The protocol minor from which STATS carries the disk tiers' totals. */
  public static final int DISK_TOTALS_MINOR = 5;

  public StatsReply {
    disk = disk == null ? DiskTotals.NONE : disk;
  }

  /** Encodes for a client that agreed on protocol minor {@code minor}. */
  public void encode(BodyWriter w, int minor) {
    w.i64(capacityBytes).i64(usedBytes).i64(objects).i32(aliveNodes).u8(state.code());
    if (minor >= DISK_TOTALS_MINOR) {
      disk.encode(w);
    }
  }

  /**
   * Decodes a reply of a master that agreed on protocol minor {@code minor}; before 2.5 the disk
   * totals are {@link DiskTotals#NONE}.
   */
  public static StatsReply decode(BodyReader r, int minor) throws ProtocolException {
    StatsReply s =
        new StatsReply(
            r.i64(),
            r.i64(),
            r.i64(),
            r.i32(),
            ServerState.fromCode(r.u8()),
            minor >= DISK_TOTALS_MINOR ? DiskTotals.decode(r) : DiskTotals.NONE);
    r.finish();
    return s;
  }

  /**
   * The disk tiers of the nodes that are not dead, summed as their heartbeats report them (protocol
   * 2.5): the caps, the bytes their files occupy, how many nodes have a tier and how many of those
   * are degraded. All zero in a pool without disk tiers.
   */
  public record DiskTotals(long capacityBytes, long usedBytes, int tiers, int degradedTiers) {
    public static final DiskTotals NONE = new DiskTotals(0, 0, 0, 0);

    void encode(BodyWriter w) {
      w.i64(capacityBytes).i64(usedBytes).i32(tiers).i32(degradedTiers);
    }

    static DiskTotals decode(BodyReader r) throws ProtocolException {
      long capacity = r.length(Long.MAX_VALUE, "disk capacity");
      long used = r.length(Long.MAX_VALUE, "disk used");
      int tiers = r.index(Integer.MAX_VALUE, "disk tiers");
      return new DiskTotals(capacity, used, tiers, r.index(tiers, "degraded disk tiers"));
    }
  }
}
