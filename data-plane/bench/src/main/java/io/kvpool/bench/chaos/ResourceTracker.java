package io.kvpool.bench.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * RSS and descriptors of every pool process from its baseline to the end. A process's baseline is
 * its first sample taken once it is warm (it has run for the warm-up time under load; for a
 * restarted process, counted from its restart) and the pool settled; its last sample is taken after
 * the final settle with the load still on, as the baseline was. Growth beyond {@link #GROWTH} of
 * the baseline and beyond an absolute floor is flagged; a process whose baseline is too recent at
 * the end is shown, not judged.
 *
 * <p>A master's role is part of what it holds: a leader keeps every node's heartbeat and commit
 * links and the clients' sessions, a standby none of them. So a process that changes role starts a
 * new baseline, taken once it has held its new role for the settle time, and is compared with
 * itself in that role only.
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
      String role,
      long roleSinceNanos,
      ProcessResources baseline,
      long baselineAtNanos,
      ProcessResources last,
      long lastAtNanos) {}

  /**
   * A verdict on one incarnation in one role; {@code ended}: a stretch that ended with a restart or
   * a role change before the last sample.
   */
  public record Judgement(
      Track track, boolean ended, boolean judged, boolean rssGrew, boolean fdsGrew) {
    public boolean flagged() {
      return rssGrew || fdsGrew;
    }
  }

  private final Map<String, Track> tracks = new LinkedHashMap<>();
  private final Map<String, Integer> restarts = new LinkedHashMap<>();
  private final Map<String, Integer> roleChanges = new LinkedHashMap<>();
  private final List<Track> ended = new ArrayList<>();
  private final long roleSettleNanos;

  /** {@code roleSettle}: how long a process holds a new role before its new baseline is taken. */
  public ResourceTracker(Duration roleSettle) {
    this.roleSettleNanos = roleSettle.toNanos();
  }

  /**
   * Records a sample of {@code name} (pid {@code pid}) in {@code role} (null: not known now, the
   * last known role stands); it becomes the baseline when the incarnation has none yet, is {@code
   * warm} (old enough, pool settled) and has held its role for the settle time.
   */
  public void sample(String name, long pid, String role, boolean warm) {
    ProcessResources.read(pid)
        .ifPresent(now -> record(name, pid, role, warm, now, System.nanoTime()));
  }

  synchronized void record(
      String name, long pid, String role, boolean warm, ProcessResources now, long nowNanos) {
    Track t = tracks.get(name);
    if (t != null && t.pid() != pid) {
      restarts.merge(name, 1, Integer::sum);
      end(t);
      t = null;
    }
    if (t == null) {
      t = new Track(name, pid, role, 0, null, 0, now, nowNanos);
    } else if (role != null && t.role() != null && !role.equals(t.role())) {
      roleChanges.merge(name, 1, Integer::sum);
      end(t);
      t = new Track(name, pid, role, nowNanos, null, 0, now, nowNanos);
    } else if (role != null && t.role() == null) {
      t = new Track(name, pid, role, t.roleSinceNanos(), t.baseline(), t.baselineAtNanos(), now, 0);
    }
    boolean settled = t.roleSinceNanos() == 0 || nowNanos - t.roleSinceNanos() >= roleSettleNanos;
    if (t.baseline() == null && warm && settled) {
      tracks.put(
          name, new Track(name, pid, t.role(), t.roleSinceNanos(), now, nowNanos, now, nowNanos));
    } else {
      tracks.put(
          name,
          new Track(
              name,
              pid,
              t.role(),
              t.roleSinceNanos(),
              t.baseline(),
              t.baselineAtNanos(),
              now,
              nowNanos));
    }
  }

  /** Keeps a stretch that had a baseline, to be judged with the others. */
  private void end(Track t) {
    if (t.baseline() != null) {
      ended.add(t);
    }
  }

  public synchronized int restarts(String name) {
    return restarts.getOrDefault(name, 0);
  }

  /**
   * How often {@code name} changed role (a standby became the leader, or the leader stepped down).
   */
  public synchronized int roleChanges(String name) {
    return roleChanges.getOrDefault(name, 0);
  }

  /**
   * Every process's latest incarnation, judged if its baseline is at least {@code
   * minBaselineAgeNanos} old, then every stretch that ended (a restart, a role change) and lasted
   * that long after its baseline. An ended stretch is judged on its private RSS only: its last
   * sample may hold connections kept for reuse that close seconds later (the final sample waits for
   * them), so its descriptors say nothing.
   */
  public synchronized List<Judgement> judge(long minBaselineAgeNanos) {
    return judge(minBaselineAgeNanos, System.nanoTime());
  }

  synchronized List<Judgement> judge(long minBaselineAgeNanos, long now) {
    List<Judgement> out = new ArrayList<>();
    for (Track t : tracks.values()) {
      if (t.baseline() == null || now - t.baselineAtNanos() < minBaselineAgeNanos) {
        out.add(new Judgement(t, false, false, false, false));
      } else {
        out.add(
            new Judgement(
                t,
                false,
                true,
                grew(t.baseline().privateKiB(), t.last().privateKiB(), FLOOR_KIB),
                grew(t.baseline().fds(), t.last().fds(), FLOOR_FDS)));
      }
    }
    for (Track t : ended) {
      if (t.lastAtNanos() - t.baselineAtNanos() >= minBaselineAgeNanos) {
        out.add(
            new Judgement(
                t,
                true,
                true,
                grew(t.baseline().privateKiB(), t.last().privateKiB(), FLOOR_KIB),
                false));
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
