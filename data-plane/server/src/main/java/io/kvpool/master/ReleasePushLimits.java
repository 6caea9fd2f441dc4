package io.kvpool.master;

import java.time.Duration;

/**
 * How far the master goes to deliver a REMOVE's releases to their nodes before answering it ({@link
 * ReleasePusher}): what it waits, what it queues and how many nodes it sends to at once. Whatever
 * these bounds cut off, the nodes' heartbeats carry.
 *
 * @param pushTimeout how long a REMOVE waits for its nodes to take its releases
 * @param quietAfterFailure how long a node whose push failed or timed out is left to its heartbeat
 * @param waitingPerNode REMOVEs whose releases may wait behind one node's send in flight; more are
 *     skipped
 * @param keptIdle after how long unused a node's kept connection is opened anew (well inside a
 *     node's idle timeout, 300 s by default, so a push after a quiet spell does not fail on a
 *     connection the node closed)
 * @param senders threads sending, one per node with a send in flight, so a few frozen nodes block
 *     no other
 */
public record ReleasePushLimits(
    Duration pushTimeout,
    Duration quietAfterFailure,
    int waitingPerNode,
    Duration keptIdle,
    int senders) {
  /** 1 s per push, 1 s quiet after a failure, 64 waiting per node, 60 s idle, 8 senders. */
  public static final ReleasePushLimits DEFAULTS =
      new ReleasePushLimits(
          Duration.ofSeconds(1), Duration.ofSeconds(1), 64, Duration.ofSeconds(60), 8);

  public ReleasePushLimits {
    for (Duration d : new Duration[] {pushTimeout, quietAfterFailure, keptIdle}) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("release push durations must be positive, got " + d);
      }
    }
    if (waitingPerNode < 1 || senders < 1) {
      throw new IllegalArgumentException(
          "release pushes need at least one waiting per node and one sender, got "
              + waitingPerNode
              + " and "
              + senders);
    }
  }

  public ReleasePushLimits withQuietAfterFailure(Duration d) {
    return new ReleasePushLimits(pushTimeout, d, waitingPerNode, keptIdle, senders);
  }

  public ReleasePushLimits withWaitingPerNode(int n) {
    return new ReleasePushLimits(pushTimeout, quietAfterFailure, n, keptIdle, senders);
  }

  public ReleasePushLimits withKeptIdle(Duration d) {
    return new ReleasePushLimits(pushTimeout, quietAfterFailure, waitingPerNode, d, senders);
  }
}
