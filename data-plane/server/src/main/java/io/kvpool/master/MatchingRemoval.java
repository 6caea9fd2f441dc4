package io.kvpool.master;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.RemoveMatchingReply;
import io.kvpool.protocol.RemoveMatchingRequest;
import io.kvpool.protocol.ServerState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * runs out of time says so ({@code finished = false}) and leaves a mark: the next one starts where
 * it stopped, so asking again reaches every key.
 */
final class MatchingRemoval {
  static final Duration MATCH_BUDGET = Duration.ofSeconds(5);
  static final Duration LOCK_WAIT = Duration.ofSeconds(1);
  static final int CHUNK = 1024;
  private static final int KEYS_BETWEEN_CLOCK_READS = 64;

  private final Master master;
  private final ReentrantLock oneAtATime = new ReentrantLock();
  private int resumeAt; // guarded by oneAtATime

  MatchingRemoval(Master master) {
    this.master = master;
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
      return removeMatches(metadata, pattern);
    } finally {
      oneAtATime.unlock();
    }
  }

  private RemoveMatchingReply removeMatches(PoolMetadata metadata, Pattern pattern) {
    List<StoredObject> objects = metadata.objects();
    int n = objects.size();
    int start = n == 0 ? 0 : Math.floorMod(resumeAt, n);
    long deadline = System.nanoTime() + MATCH_BUDGET.toNanos();
    Tally tally = new Tally();
    List<StoredObject> matched = new ArrayList<>();
    boolean finished = true;
    for (int i = 0; i < n; i++) {
      if (i % KEYS_BETWEEN_CLOCK_READS == 0 && i > 0 && System.nanoTime() - deadline > 0) {
        finished = false;
        resumeAt = start + i;
        break;
      }
      StoredObject o = objects.get((start + i) % n);
      if (pattern.matcher(o.key).find()) {
        matched.add(o);
        if (matched.size() == CHUNK) {
          remove(metadata, matched, tally);
          matched.clear();
        }
      }
    }
    remove(metadata, matched, tally);
    return new RemoveMatchingReply(tally.removed, tally.kept, finished);
  }

  private void remove(PoolMetadata metadata, List<StoredObject> matched, Tally tally) {
    if (matched.isEmpty()) {
      return;
    }
    PoolMetadata.Removal removal = metadata.removeObjects(matched);
    master.releasePusher().push(removal.releasesByNode(), metadata.view());
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
