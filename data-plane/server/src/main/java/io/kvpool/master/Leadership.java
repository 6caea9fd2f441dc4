package io.kvpool.master;

import java.util.Set;

/**
 * Decides which master leads. One code path for every deployment: a Kubernetes Lease per pool
 * ({@link LeaseLeadership}), or {@link SoleLeadership} for a single master outside Kubernetes.
 */
interface Leadership extends AutoCloseable {
  /** Receives leadership changes; called from the leadership's own thread. */
  interface Listener {
    /**
     * This master now leads; serve under a new view. {@code previousNodes}: the storage nodes the
     * previous leader recorded as served (empty when none were recorded), for recovery to wait for.
     */
    void startedLeading(Set<String> previousNodes);

    /**
     * The storage nodes this master serves while leading, for the next leader; null while standing
     * by.
     */
    Set<String> servedNodes();

    /** This master lost (or gave up) leadership: stop serving at once. */
    void stoppedLeading();

    /**
     * Another master leads; {@code leaderIdentity} names it (pod and endpoints, see {@link
     * LeaderIdentity}).
     */
    void newLeader(String leaderIdentity);
  }

  void start(Listener listener);

  /**
   * Whether this master, while it leads, may still act as the leader now: false once its last
   * renewal is older than the renew deadline (a process paused by SIGSTOP, a long GC, a node cut
   * off from the API server): another master may have taken the Lease meanwhile, and this one will
   * learn so only at its next renewal attempt.
   */
  boolean certain();

  /**
   * Gives leadership up now (admin step-down) so a standby takes over without waiting for the Lease
   * to expire.
   */
  void stepDown();

  @Override
  void close();
}
