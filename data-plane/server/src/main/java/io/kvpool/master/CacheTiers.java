package io.kvpool.master;

import io.kvpool.admin.MasterStatus;
import io.kvpool.protocol.DiskFigures;
import java.util.ArrayList;
import java.util.List;

/**
 * The pool's storage tiers as /status and the tier gauges show them: {@code memory}, and {@code
 * disk} (the disk tiers of the nodes that are not dead, as their heartbeats report them) when any
 * node has one. An object counts in the memory tier while any of its replicas is in memory, in the
 * disk tier once all are on disk tiers.
 */
final class CacheTiers {
  static final String MEMORY = "memory";
  static final String DISK = "disk";

  private CacheTiers() {}

  static List<MasterStatus.Tier> of(PoolSnapshot s) {
    List<MasterStatus.Tier> tiers = new ArrayList<>();
    tiers.add(
        new MasterStatus.Tier(
            MEMORY, s.capacityBytes(), s.usedBytes(), s.objectCount() - s.objectsOnDisk()));
    long capacity = 0;
    long used = 0;
    boolean any = false;
    for (PoolSnapshot.Node n : s.nodes()) {
      DiskFigures disk = n.disk();
      if (disk != null) {
        any = true;
        capacity += disk.capacityBytes();
        used += disk.usedBytes();
      }
    }
    if (any) {
      tiers.add(new MasterStatus.Tier(DISK, capacity, used, s.objectsOnDisk()));
    }
    return List.copyOf(tiers);
  }
}
