package io.kvpool.master;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Release;
import io.kvpool.protocol.RemoveMatchingReply;
import io.kvpool.protocol.RemoveMatchingRequest;
import io.kvpool.protocol.ServerState;
import io.prometheus.metrics.core.metrics.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * REMOVE_MATCHING (protocol 2.4): removes the objects whose keys contain a match of an RE2 pattern.
 * Bounded: the pattern is at most {@link RemoveMatchingRequest#MAX_PATTERN_BYTES}, expands to at
 * most {@link PatternSize#MAX} instructions, and RE2 matches without backtracking (time linear in a
 * key of at most 4096 bytes); the keys are matched outside the metadata lock, from an array copy of
 * the table, for at most {@link #MATCH_BUDGET}; matches are removed under the lock in chunks of
 * {@link #CHUNK}, each as REMOVE removes a key (a leased, copied or unfinished object is kept), and
 * their releases pushed to the holders as REMOVE pushes them (within the same budget). One such
 * request runs at a time (another waits {@link #LOCK_WAIT}, then is answered BUSY). A request that
 * runs out of time says so ({@code finished = false}) and keeps its walk: the next request with the
 * same pattern (within {@link #WALK_KEPT}, on the same leader) goes on where it stopped, over the
 * keys the walk began with, so asking again reaches every key stored when the first request came
 * (keys stored since are not looked at).
 */
final class MatchingRemoval {
  static final Duration MATCH_BUDGET = Duration.ofSeconds(5);
  static final Duration LOCK_WAIT = Duration.ofSeconds(1);
  static final Duration WALK_KEPT = Duration.ofSeconds(60);
  static final int CHUNK = 1024;
  private static final int KEYS_BETWEEN_CLOCK_READS = 64;

  /**
   * Where a removal's releases go: the holders, before the reply (REMOVE's {@link ReleasePusher}).
   */
  interface Releases {
    void push(Map<String, List<Release>> byEndpoint, long view);
  }

  private final Releases releases;
  private final Duration budget;
  private final Counter outcomes;
  private final ReentrantLock oneAtATime = new ReentrantLock();
  private Walk walk; // guarded by oneAtATime: the walk a request left unfinished

  /**
   * A walk over the table as it was when its first request began, left at {@code next} by a request
   * that ran out of time; the next request with the same pattern on the same leader goes on from
   * there (within {@link #WALK_KEPT}).
   */
  private record Walk(
      PoolMetadata metadata, String pattern, List<StoredObject> objects, int next, long leftAt) {}

  /** {@code outcomes}: counts matched objects by label {@code removed} or {@code kept}. */
  MatchingRemoval(Releases releases, Duration budget, Counter outcomes) {
    this.releases = releases;
    this.budget = budget;
    this.outcomes = outcomes;
  }

  RemoveMatchingReply serve(PoolMetadata metadata, RemoveMatchingRequest request) {
    String problem = RemoveMatchingRequest.limitProblem(request.pattern());
    if (problem != null) {
      throw new RefusedException(ErrorCode.LIMIT_EXCEEDED, problem);
    }
    long size = PatternSize.of(request.pattern());
    if (size > PatternSize.MAX) {
      throw new RefusedException(
          ErrorCode.LIMIT_EXCEEDED,
          "pattern expands to about "
              + size
              + " instructions (counted repetitions multiplied out); at most "
              + PatternSize.MAX
              + " allowed in REMOVE_MATCHING");
    }
    Pattern pattern;
    try {
      pattern = Pattern.compile(request.pattern());
    } catch (PatternSyntaxException e) {
      throw new RefusedException(
          ErrorCode.MALFORMED_REQUEST, "not an RE2 pattern: " + e.getMessage());
    }
    if (metadata.state() == ServerState.RECOVERING) {
      throw new RefusedException(
          ErrorCode.RECOVERING,
          "the leader is rebuilding its index: it does not know every key yet");
    }
    try {
      if (!oneAtATime.tryLock(LOCK_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new RefusedException(ErrorCode.BUSY, "another REMOVE_MATCHING is running");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RefusedException(ErrorCode.INTERNAL, "interrupted");
    }
    try {
      return removeMatches(metadata, request.pattern(), pattern);
    } finally {
      oneAtATime.unlock();
    }
  }

  private RemoveMatchingReply removeMatches(PoolMetadata metadata, String text, Pattern pattern) {
    long now = System.nanoTime();
    Walk left = walk;
    walk = null;
    boolean goOn =
        left != null
            && left.metadata() == metadata
            && left.pattern().equals(text)
            && now - left.leftAt() < WALK_KEPT.toNanos();
    List<StoredObject> objects = goOn ? left.objects() : metadata.objects();
    long deadline = now + budget.toNanos();
    Tally tally = new Tally();
    List<StoredObject> matched = new ArrayList<>();
    boolean finished = true;
    int first = goOn ? left.next() : 0;
    for (int i = first; i < objects.size(); i++) {
      if (i > first && i % KEYS_BETWEEN_CLOCK_READS == 0 && System.nanoTime() - deadline > 0) {
        finished = false;
        walk = new Walk(metadata, text, objects, i, System.nanoTime());
        break;
      }
      StoredObject o = objects.get(i);
      if (pattern.matcher(o.key).find()) {
        matched.add(o);
        if (matched.size() == CHUNK) {
          remove(metadata, matched, tally);
          matched.clear();
        }
      }
    }
    remove(metadata, matched, tally);
    outcomes.labelValues("removed").inc(tally.removed);
    outcomes.labelValues("kept").inc(tally.kept);
    return new RemoveMatchingReply(tally.removed, tally.kept, finished);
  }

  private void remove(PoolMetadata metadata, List<StoredObject> matched, Tally tally) {
    if (matched.isEmpty()) {
      return;
    }
    PoolMetadata.Removal removal = metadata.removeObjects(matched);
    releases.push(removal.releasesByNode(), metadata.view());
    for (ErrorCode s : removal.statuses()) {
      if (s == ErrorCode.OK) {
        tally.removed++;
      } else if (s != ErrorCode.NOT_FOUND) {
        tally.kept++;
      }
    }
  }

  private static final class Tally {
    long removed;
    long kept;
  }
}
