package io.kvpool.bench.capacity;

import io.kvpool.bench.BenchmarkFailedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The live heap of a JVM, class by class: {@code jcmd PID GC.class_histogram}, which runs a full
 * collection first, so that the totals are what the objects keep reachable, not garbage.
 */
record HeapCensus(long totalBytes, long totalInstances, List<Row> rows) {
  /** One class: its live instances and their bytes (shallow: each object's own fields). */
  record Row(String className, long instances, long bytes) {}

  private static final Pattern ROW =
      Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)(?:\\s+\\(.*\\))?\\s*$");
  private static final Pattern TOTAL = Pattern.compile("^\\s*Total\\s+(\\d+)\\s+(\\d+)\\s*$");

  /** Takes the census of process {@code pid} (a JVM of this user). */
  static HeapCensus of(long pid) {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    try {
      Process p =
          new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.class_histogram")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new BenchmarkFailedException(
            "jcmd " + pid + " GC.class_histogram failed: " + firstLines(out));
      }
      return parse(out);
    } catch (IOException e) {
      throw new BenchmarkFailedException("cannot run " + jcmd + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkFailedException("interrupted during a heap census", e);
    }
  }

  /** Parses jcmd's histogram: its numbered rows and the Total line. */
  static HeapCensus parse(String histogram) {
    List<Row> rows = new ArrayList<>();
    for (String line : histogram.lines().toList()) {
      Matcher total = TOTAL.matcher(line);
      if (total.matches()) {
        return new HeapCensus(
            Long.parseLong(total.group(2)), Long.parseLong(total.group(1)), List.copyOf(rows));
      }
      Matcher row = ROW.matcher(line);
      if (row.matches()) {
        rows.add(new Row(row.group(3), Long.parseLong(row.group(1)), Long.parseLong(row.group(2))));
      }
    }
    throw new BenchmarkFailedException(
        "no Total line in the class histogram: " + firstLines(histogram));
  }

  /** This census's instances and bytes of {@code className}, zero if none. */
  Row row(String className) {
    return rows.stream()
        .filter(r -> r.className().equals(className))
        .findFirst()
        .orElse(new Row(className, 0, 0));
  }

  private static String firstLines(String text) {
    return String.join(" | ", text.lines().limit(5).toList());
  }
}
