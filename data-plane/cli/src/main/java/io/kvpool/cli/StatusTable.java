package io.kvpool.cli;

import io.kvpool.admin.MasterStatus;
import io.kvpool.client.PoolStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Renders the master's {@code /status} document as the table {@code kvpool stat} and {@code demo}
 * print.
 */
public final class StatusTable {

  private StatusTable() {}

  static String render(MasterStatus status) {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "pool %s  role %s  view %d  release %s  protocol %s%n",
            status.poolId(),
            status.role(),
            status.view(),
            status.releaseVersion(),
            status.protocolVersion()));
    String format = "%-10s %-22s %-9s %12s %12s %6s %-8s %12s%n";
    out.append(
        String.format(
            Locale.ROOT,
            format,
            "NODE",
            "ENDPOINT",
            "STATE",
            "CAPACITY",
            "USED",
            "USED%",
            "VERSION",
            "HEARTBEAT"));
    List<MasterStatus.NodeStatus> nodes = new ArrayList<>(status.nodes());
    nodes.sort(Comparator.comparing(MasterStatus.NodeStatus::id));
    for (MasterStatus.NodeStatus node : nodes) {
      out.append(
          String.format(
              Locale.ROOT,
              format,
              node.id(),
              node.endpoint(),
              node.state(),
              bytes(node.capacityBytes()),
              bytes(node.usedBytes()),
              percent(node.usedBytes(), node.capacityBytes()),
              node.version(),
              node.lastHeartbeatMillisAgo() + " ms ago" + (node.silent() ? ", silent" : "")));
    }
    out.append(
        String.format(
            Locale.ROOT,
            format,
            "total",
            "",
            "",
            bytes(status.capacityBytes()),
            bytes(status.usedBytes()),
            percent(status.usedBytes(), status.capacityBytes()),
            "",
            ""));
    for (MasterStatus.NodeStatus node : nodes) {
      MasterStatus.NodeDisk disk = node.disk();
      if (disk != null) {
        out.append(
            String.format(
                Locale.ROOT,
                "disk %s: %s of %s (%s) %s%n",
                node.id(),
                bytes(disk.usedBytes()),
                bytes(disk.capacityBytes()),
                percent(disk.usedBytes(), disk.capacityBytes()),
                disk.healthy() ? "healthy" : "degraded: " + disk.message()));
      }
    }
    out.append("objects ").append(status.objectCount()).append(System.lineSeparator());
    MasterStatus.Counters c = status.counters();
    if (c != null) {
      long lookups = c.getHits() + c.getMisses();
      out.append(
          String.format(
              Locale.ROOT,
              "puts %d  gets %d  hit ratio %s  evictions %d  repairs %d%n",
              c.puts(),
              c.gets(),
              lookups == 0
                  ? "-"
                  : String.format(Locale.ROOT, "%.2f", c.getHits() / (double) lookups),
              c.evictions(),
              c.repairs()));
      out.append(
          String.format(
              Locale.ROOT,
              "counters objectsLost=%d versionMismatches=%d pendingObjects=%d"
                  + " pinnedObjects=%d underReplicated=%d tombstones=%d%n",
              c.objectsLost(),
              c.versionMismatches(),
              c.pendingObjects(),
              c.pinnedObjects(),
              c.underReplicated(),
              c.tombstones()));
    }
    return out.toString();
  }

  /** The totals the RPC {@code Stats} call returns, when the admin address is not known. */
  static String summary(PoolStats stats) {
    String memory =
        String.format(
            Locale.ROOT,
            "nodes %d  capacity %s  used %s (%s)  objects %d",
            stats.nodes(),
            bytes(stats.capacityBytes()),
            bytes(stats.usedBytes()),
            percent(stats.usedBytes(), stats.capacityBytes()),
            stats.objects());
    PoolStats.DiskTier disk = stats.disk();
    if (disk.nodes() == 0) {
      return memory;
    }
    return memory
        + String.format(
            Locale.ROOT,
            "%ndisk tiers %d  capacity %s  used %s (%s)%s",
            disk.nodes(),
            bytes(disk.capacityBytes()),
            bytes(disk.usedBytes()),
            percent(disk.usedBytes(), disk.capacityBytes()),
            disk.degradedNodes() == 0 ? "" : "  degraded " + disk.degradedNodes());
  }

  private static String percent(long part, long whole) {
    return whole <= 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", 100.0 * part / whole);
  }

  /** Binary units with one decimal, e.g. {@code 190.3 MiB}. */
  public static String bytes(long bytes) {
    String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }
}
