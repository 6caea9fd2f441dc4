package io.kvpool.common;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/** Counters and gauges rendered in the Prometheus text exposition format. */
public final class MetricsRegistry {
  /** One labelled value of a gauge family. */
  public record Sample(Map<String, String> labels, double value) {
  }

  /** Monotonic counter. */
  public static final class Counter {
    private final LongAdder adder = new LongAdder();

    public void inc() {
      adder.increment();
    }

    public void add(long n) {
      adder.add(n);
    }

    public long get() {
      return adder.sum();
    }
  }

  private record Family(String name, String help, String type, Supplier<List<Sample>> samples) {
  }

  private final List<Family> families = new CopyOnWriteArrayList<>();

  public Counter counter(String name, String help) {
    Counter c = new Counter();
    families.add(new Family(name, help, "counter", () -> List.of(new Sample(Map.of(), c.get()))));
    return c;
  }

  public void gauge(String name, String help, Supplier<Double> value) {
    families.add(new Family(name, help, "gauge", () -> List.of(new Sample(Map.of(), value.get()))));
  }

  public void gaugeFamily(String name, String help, Supplier<List<Sample>> samples) {
    families.add(new Family(name, help, "gauge", samples));
  }

  public String render() {
    StringBuilder out = new StringBuilder(4096);
    for (Family f : families) {
      out.append("# HELP ").append(f.name).append(' ').append(f.help).append('\n');
      out.append("# TYPE ").append(f.name).append(' ').append(f.type).append('\n');
      for (Sample s : new ArrayList<>(f.samples.get())) {
        out.append(f.name);
        if (!s.labels().isEmpty()) {
          out.append('{');
          boolean first = true;
          for (Map.Entry<String, String> e : new TreeMap<>(s.labels()).entrySet()) { // stable label order
            if (!first) {
              out.append(',');
            }
            first = false;
            out.append(e.getKey()).append("=\"").append(escape(e.getValue())).append('"');
          }
          out.append('}');
        }
        out.append(' ').append(formatValue(s.value())).append('\n');
      }
    }
    return out.toString();
  }

  private static String formatValue(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  private static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
