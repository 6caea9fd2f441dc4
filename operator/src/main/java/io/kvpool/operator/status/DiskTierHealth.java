package io.kvpool.operator.status;

import io.kvpool.admin.MasterStatus;
import io.kvpool.admin.NodeState;
import io.kvpool.operator.common.ByteQuantity;
import java.util.List;
import java.util.Optional;

/**
 * Condition {@value #CONDITION}: whether a storage node's disk tier is degraded (its writes fail:
 * disk full, an I/O error, a read-only or vanished folder), as the leader hears it from the nodes'
 * heartbeats. The node keeps serving from memory, so the pool stays Available; the condition names
 * each such node and its reason. Absent while the leader reports no node with a disk tier. Pure.
 */
final class DiskTierHealth {
  static final String CONDITION = "DiskTierDegraded";
  static final String DEGRADED = "DiskTierDegraded";
  static final String HEALTHY = "DiskTiersHealthy";

  /** Nodes named in one message; the rest are counted. */
  static final int MAX_NAMED = 3;

  record Verdict(boolean status, String reason, String message) {}

  private DiskTierHealth() {}

  static Optional<Verdict> of(Optional<MasterStatus> master) {
    List<MasterStatus.NodeStatus> withTier =
        master.map(MasterStatus::nodes).orElse(List.of()).stream()
            .filter(n -> n.disk() != null && n.nodeState() != NodeState.DEAD)
            .toList();
    if (withTier.isEmpty()) {
      return Optional.empty();
    }
    List<MasterStatus.NodeStatus> degraded =
        withTier.stream().filter(n -> !n.disk().healthy()).toList();
    if (degraded.isEmpty()) {
      long capacity = withTier.stream().mapToLong(n -> n.disk().capacityBytes()).sum();
      long used = withTier.stream().mapToLong(n -> n.disk().usedBytes()).sum();
      return Optional.of(
          new Verdict(
              false,
              HEALTHY,
              "The disk tiers of "
                  + withTier.size()
                  + " storage node(s) are healthy: "
                  + ByteQuantity.display(used)
                  + " of "
                  + ByteQuantity.display(capacity)
                  + " used."));
    }
    StringBuilder message = new StringBuilder();
    for (MasterStatus.NodeStatus n : degraded.subList(0, Math.min(MAX_NAMED, degraded.size()))) {
      message
          .append(message.isEmpty() ? "" : " ")
          .append("The disk tier of storage node ")
          .append(n.id())
          .append(" is degraded (")
          .append(n.disk().message().isBlank() ? "no reason given" : n.disk().message().strip())
          .append("); it serves from memory only.");
    }
    if (degraded.size() > MAX_NAMED) {
      message
          .append(" ")
          .append(degraded.size() - MAX_NAMED)
          .append(" more storage node(s) have a degraded disk tier.");
    }
    return Optional.of(new Verdict(true, DEGRADED, message.toString()));
  }
}
