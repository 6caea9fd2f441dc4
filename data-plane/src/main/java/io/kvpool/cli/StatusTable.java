package io.kvpool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvpool.client.PoolStats;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders the master's {@code /status} JSON as the table {@code kvpool stat} and {@code demo} print. */
final class StatusTable {

  private StatusTable() {
  }

  static String render(JsonNode status) {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "pool %s  role %s  view %s  release %s  protocol %s%n",
        text(status, "poolId"), text(status, "role"), text(status, "viewNumber"), text(status, "releaseVersion"),
        text(status, "protocolVersion")));
    String format = "%-10s %-22s %-9s %12s %12s %6s %-8s %12s%n";
    out.append(String.format(Locale.ROOT, format, "NODE", "ENDPOINT", "STATE", "CAPACITY", "USED", "USED%",
        "VERSION", "HEARTBEAT"));
    List<JsonNode> nodes = new ArrayList<>();
    status.path("nodes").forEach(nodes::add);
    nodes.sort(Comparator.comparing(node -> node.path("id").asText()));
    for (JsonNode node : nodes) {
      long capacity = node.path("capacityBytes").asLong();
      long used = node.path("usedBytes").asLong();
      out.append(String.format(Locale.ROOT, format, text(node, "id"), text(node, "endpoint"), text(node, "state"),
          bytes(capacity), bytes(used), percent(used, capacity), text(node, "version"),
          node.has("lastHeartbeatMillisAgo") ? node.path("lastHeartbeatMillisAgo").asLong() + " ms ago" : "-"));
    }
    long capacity = status.path("capacityBytes").asLong();
    long used = status.path("usedBytes").asLong();
    out.append(String.format(Locale.ROOT, format, "total", "", "", bytes(capacity), bytes(used),
        percent(used, capacity), "", ""));
    out.append("objects ").append(status.path("objectCount").asLong()).append(System.lineSeparator());
    JsonNode counters = status.path("counters");
    long hits = counters.path("getHits").asLong();
    long lookups = hits + counters.path("getMisses").asLong();
    out.append(String.format(Locale.ROOT, "puts %d  gets %d  hit ratio %s  evictions %d  repairs %d%n",
        counters.path("puts").asLong(), counters.path("gets").asLong(),
        lookups == 0 ? "-" : String.format(Locale.ROOT, "%.2f", hits / (double) lookups),
        counters.path("evictions").asLong(), counters.path("repairs").asLong()));
    List<String> all = new ArrayList<>();
    for (Map.Entry<String, JsonNode> counter : counters.properties()) {
      all.add(counter.getKey() + "=" + counter.getValue().asText());
    }
    if (!all.isEmpty()) {
      out.append("counters ").append(String.join(" ", all)).append(System.lineSeparator());
    }
    return out.toString();
  }

  /** The totals the RPC {@code Stats} call returns, when the admin address is not known. */
  static String summary(PoolStats stats) {
    return String.format(Locale.ROOT, "nodes %d  capacity %s  used %s (%s)  objects %d", stats.nodes(),
        bytes(stats.capacityBytes()), bytes(stats.usedBytes()), percent(stats.usedBytes(), stats.capacityBytes()),
        stats.objects());
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? "-" : value.isValueNode() ? value.asText() : value.toString();
  }

  private static String percent(long part, long whole) {
    return whole <= 0 ? "-" : String.format(Locale.ROOT, "%.0f%%", 100.0 * part / whole);
  }

  /** Binary units with one decimal, e.g. {@code 190.3 MiB}. */
  static String bytes(long bytes) {
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
