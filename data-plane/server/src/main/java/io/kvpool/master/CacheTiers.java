package io.kvpool.master;

import io.kvpool.admin.MasterStatus;
import java.util.List;

/**
 * The pool's storage tiers as /status and the tier gauges show them: only {@code memory} exists
 * today.
 */
final class CacheTiers {
  static final String MEMORY = "memory";

  private CacheTiers() {}

  static List<MasterStatus.Tier> of(PoolSnapshot s) {
    return List.of(new MasterStatus.Tier(MEMORY, s.capacityBytes(), s.usedBytes()));
  }
}
