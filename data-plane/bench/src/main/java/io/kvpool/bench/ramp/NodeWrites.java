package io.kvpool.bench.ramp;

import io.kvpool.cli.AdminApi;
import java.util.OptionalLong;

/**
 * The bytes a storage node has written into its segments, from its own {@code /metrics} ({@code
 * kvpool_storage_write_bytes_total}): what the node received, not what the master meant to place.
 */
final class NodeWrites {
  static final String COUNTER = "kvpool_storage_write_bytes_total";

  private NodeWrites() {}

  /** The counter of the node whose admin endpoint is {@code adminAddress}. */
  static long of(String adminAddress) {
    String page = new AdminApi(adminAddress).text("/metrics");
    return parse(page)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "the storage node at "
                        + adminAddress
                        + " exports no "
                        + COUNTER
                        + " in its /metrics"));
  }

  /** The counter's value in a Prometheus text page, empty when absent. */
  static OptionalLong parse(String page) {
    for (String line : page.split("\n")) {
      if (line.startsWith(COUNTER + " ")) {
        String[] fields = line.substring(COUNTER.length()).trim().split("\\s+");
        return OptionalLong.of((long) Double.parseDouble(fields[0]));
      }
    }
    return OptionalLong.empty();
  }
}
