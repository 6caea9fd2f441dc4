package io.kvpool.master;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Re-reads the eviction settings ({@code KVPOOL_HIGH_WATERMARK}, {@code KVPOOL_EVICT_RATIO}) from
 * the config directory while the master runs, so that a change of the pool's ConfigMap (which the
 * kubelet rewrites in the mounted folder) takes effect without restarting any pod. Only settings
 * that come from the folder are followed: a flag or an environment variable fixes its value for the
 * process. A file that does not parse, or values out of range, are logged and ignored: the master
 * keeps what it runs with.
 */
final class LiveEvictionSettings implements AutoCloseable {
  static final String HIGH_WATERMARK = "KVPOOL_HIGH_WATERMARK";
  static final String EVICT_RATIO = "KVPOOL_EVICT_RATIO";
  private static final Logger LOG = LoggerFactory.getLogger(LiveEvictionSettings.class);

  /**
   * Takes (high watermark, evict ratio); throws IllegalArgumentException for values out of range.
   */
  interface Sink {
    void update(double highWatermark, double evictRatio);
  }

  private final Sink master;
  private final Path configDir;
  private final ScheduledExecutorService timer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "master-live-settings");
            t.setDaemon(true);
            return t;
          });
  private double highWatermark;
  private double evictRatio;
  private String lastProblem;

  LiveEvictionSettings(Sink master, Path configDir, double highWatermark, double evictRatio) {
    this.master = master;
    this.configDir = configDir;
    this.highWatermark = highWatermark;
    this.evictRatio = evictRatio;
  }

  /** Follows the folder every {@code period}, starting from the values the master runs with. */
  static LiveEvictionSettings follow(
      Sink master, Path configDir, double highWatermark, double evictRatio, Duration period) {
    LiveEvictionSettings live =
        new LiveEvictionSettings(master, configDir, highWatermark, evictRatio);
    live.timer.scheduleWithFixedDelay(
        live::check, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    return live;
  }

  void check() {
    try {
      double watermark = read(HIGH_WATERMARK, highWatermark);
      double ratio = read(EVICT_RATIO, evictRatio);
      if (watermark == highWatermark && ratio == evictRatio) {
        return;
      }
      master.update(watermark, ratio); // validated by MasterConfig: out of range throws
      highWatermark = watermark;
      evictRatio = ratio;
      lastProblem = null;
    } catch (IOException | IllegalArgumentException e) {
      String problem = e.getMessage();
      if (!problem.equals(lastProblem)) {
        LOG.warn("event=eviction_settings_ignored dir={} reason=\"{}\"", configDir, problem);
        lastProblem = problem;
      }
    }
  }

  private double read(String key, double current) throws IOException {
    Path file = configDir.resolve(key);
    if (!Files.isRegularFile(file)) {
      return current;
    }
    String text = Files.readString(file, StandardCharsets.UTF_8).trim();
    try {
      return Double.parseDouble(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " '" + text + "' is not a number");
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
