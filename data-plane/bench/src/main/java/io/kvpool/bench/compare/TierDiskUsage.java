package io.kvpool.bench.compare;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Samples what each storage node's disk tier folder occupies, as {@code du} says, on a thread of
 * its own while a fill runs: allocated bytes ({@code du -s -B1}, what the tier's cap bounds) and
 * apparent bytes ({@code du -sb}); keeps the largest of each per folder.
 */
final class TierDiskUsage implements AutoCloseable {
  private static final long INTERVAL_MILLIS = 100;

  /** The largest figures seen in one folder, and how many samples were taken. */
  record Peak(long allocatedBytes, long apparentBytes, int samples) {}

  private final Map<String, Path> folders;
  private final Map<String, long[]> peaks = new LinkedHashMap<>();
  private final Thread sampler;
  private volatile boolean stopped;
  private volatile String failure;

  TierDiskUsage(Map<String, Path> folders) {
    this.folders = folders;
    folders.keySet().forEach(node -> peaks.put(node, new long[3]));
    sampler = new Thread(this::sampleUntilStopped, "tier-du-sampler");
    sampler.setDaemon(true);
    sampler.start();
  }

  private void sampleUntilStopped() {
    while (!stopped) {
      try {
        sampleOnce();
        Thread.sleep(INTERVAL_MILLIS);
      } catch (InterruptedException e) {
        return;
      } catch (IOException | RuntimeException e) {
        failure = e.getMessage();
        return;
      }
    }
  }

  private void sampleOnce() throws IOException, InterruptedException {
    for (Map.Entry<String, Path> f : folders.entrySet()) {
      long allocated = du(f.getValue(), "-B1");
      long apparent = du(f.getValue(), "-b");
      synchronized (peaks) {
        long[] p = peaks.get(f.getKey());
        p[0] = Math.max(p[0], allocated);
        p[1] = Math.max(p[1], apparent);
        p[2]++;
      }
    }
  }

  /**
   * {@code du -s FLAG folder} in bytes; taken again when a file the tier reclaimed vanished between
   * du's listing and its look at the file.
   */
  static long du(Path folder, String flag) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      Process p =
          new ProcessBuilder(List.of("du", "-s", flag, folder.toString()))
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("du -s " + flag + " " + folder + " took over 30 s: " + out);
      }
      if (p.exitValue() == 0) {
        return Long.parseLong(out.split("\\s+")[0]);
      }
      if (attempt >= 10 || !out.contains("No such file or directory")) {
        throw new IOException("du -s " + flag + " " + folder + " failed: " + out);
      }
    }
  }

  /** Stops sampling (after one last sample) and returns the peaks by node. */
  Map<String, Peak> stop() throws IOException, InterruptedException {
    stopped = true;
    sampler.interrupt();
    sampler.join(TimeUnit.SECONDS.toMillis(60));
    if (failure != null) {
      throw new IOException("sampling du failed: " + failure);
    }
    sampleOnce();
    Map<String, Peak> out = new LinkedHashMap<>();
    synchronized (peaks) {
      peaks.forEach((node, p) -> out.put(node, new Peak(p[0], p[1], (int) p[2])));
    }
    return out;
  }

  @Override
  public void close() {
    stopped = true;
    sampler.interrupt();
  }
}
