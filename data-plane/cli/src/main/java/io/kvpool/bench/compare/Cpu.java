package io.kvpool.bench.compare;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** CPU time (user + system) of groups of processes, read before and after a phase. */
final class Cpu {
  private final Map<String, List<ProcessHandle>> groups;

  Cpu(Map<String, List<ProcessHandle>> groups) {
    this.groups = groups;
  }


  Map<String, Long> read() {
    Map<String, Long> nanos = new LinkedHashMap<>();
    groups.forEach((name, processes) -> nanos.put(name, processes.stream()
        .mapToLong(p -> p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L)).sum()));
    return nanos;
  }

  /** CPU microseconds per operation, by group, between two readings. */
  static Map<String, Double> perOp(Map<String, Long> before, Map<String, Long> after, long ops) {
    Map<String, Double> out = new LinkedHashMap<>();
    after.forEach((name, nanos) -> out.put(name, ops == 0 ? 0 : (nanos - before.getOrDefault(name, 0L)) / 1e3 / ops));
    return out;
  }
}
