package io.kvpool.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time (user + system) used by groups of processes, read from the OS before and after a phase. On a
 * shared machine CPU per operation is steadier than wall-clock throughput, and per group it shows where a
 * target spends its work (client, master, storage nodes, server).
 */
final class CpuMeter {

  private final Map<String, List<ProcessHandle>> groups;

  /** Groups in print order, e.g. {@code client -> [this JVM], storage -> [node pids]}. */
  CpuMeter(Map<String, List<ProcessHandle>> groups) {
    this.groups = groups;
  }

  static CpuMeter thisProcessOnly(String name) {
    return new CpuMeter(Map.of(name, List.of(ProcessHandle.current())));
  }

  /** Cumulative CPU nanoseconds per group now. */
  Map<String, Long> read() {
    Map<String, Long> nanos = new LinkedHashMap<>();
    groups.forEach((name, processes) -> nanos.put(name, processes.stream()
        .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum()));
    return nanos;
  }

  /** CPU nanoseconds per group used between two readings. */
  static Map<String, Long> used(Map<String, Long> before, Map<String, Long> after) {
    Map<String, Long> used = new LinkedHashMap<>();
    after.forEach((name, nanos) -> used.put(name, nanos - before.getOrDefault(name, 0L)));
    return used;
  }
}
