package io.kvpool.bench.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * RSS and descriptors of every pool process from its baseline to the end. A process's baseline is
 * its first sample taken once it is warm (it has run for the warm-up time under load; for a
 * restarted process, counted from its restart) and the pool settled; its last sample is taken after
 * the final settle with the load still on, as the baseline was. Growth beyond {@link #GROWTH} of
 * the baseline and beyond an absolute floor is flagged; a process whose baseline is too recent at
 * the end is shown, not judged.
 */
public final class ResourceTracker {
  /** Allowed growth: 10 %. */
  static final double GROWTH = 0.10;

  /** Growth below these never counts (tiny numbers, JIT and code cache settling). */
  static final long FLOOR_KIB = 16 << 10;

  static final long FLOOR_FDS = 16;

  /**
   * One process incarnation: its role name and pid, baseline and last sample, and when the baseline
   * was taken.
   */
  public record Track(
      String name,
      long pid,
      ProcessResources baseline,
      long baselineAtNanos,
      ProcessResources last) {}

  /** A verdict on one incarnation. */
  public record Judgement(Track track, boolean judged, boolean rssGrew, boolean fdsGrew) {
    public boolean flagged() {
      return rssGrew || fdsGrew;
    }
  }

  private final Map<String, Track> tracks = new LinkedHashMap<>();
  private final Map<String, Integer> restarts = new LinkedHashMap<>();

  /**
   * Records a sample of {@code name} (pid {@code pid}); it becomes the baseline when the
   * incarnation has none yet and {@code warm} (old enough, pool settled).
   */
  public synchronized void sample(String name, long pid, boolean warm) {
    Optional<ProcessResources> now = ProcessResources.read(pid);
    if (now.isEmpty()) {
      return;
    }
    Track t = tracks.get(name);
    if (t != null && t.pid() != pid) {
      restarts.merge(name, 1, Integer::sum);
      t = null;
    }
    if (t == null || t.baseline() == null) {
      tracks.put(
          name,
          warm
              ? new Track(name, pid, now.get(), System.nanoTime(), now.get())
              : new Track(name, pid, null, 0, now.get()));
    } else {
      tracks.put(name, new Track(name, pid, t.baseline(), t.baselineAtNanos(), now.get()));
    }
  }

  public synchronized int restarts(String name) {
    return restarts.getOrDefault(name, 0);
  }

  /**
   * Every process's latest incarnation, judged if its baseline is at least {@code
   * minBaselineAgeNanos} old.
   */
  public synchronized List<Judgement> judge(long minBaselineAgeNanos) {
    List<Judgement> out = new ArrayList<>();
    long now = System.nanoTime();
    for (Track t : tracks.values()) {
      if (t.baseline() == null || now - t.baselineAtNanos() < minBaselineAgeNanos) {
        out.add(new Judgement(t, false, false, false));
      } else {
        out.add(
            new Judgement(
                t,
                true,
                grew(t.baseline().privateKiB(), t.last().privateKiB(), FLOOR_KIB),
                grew(t.baseline().fds(), t.last().fds(), FLOOR_FDS)));
      }
    }
    return out;
  }

  /** More than 10 % and more than {@code floor} above {@code start}. */
  static boolean grew(long start, long end, long floor) {
    long growth = end - start;
    return growth > floor && growth > start * GROWTH;
  }
}
