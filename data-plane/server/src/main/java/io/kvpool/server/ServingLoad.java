package io.kvpool.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Which of a server's sessions it is answering: whether a reply goes to the only peer the server is serving, a
 * connection that has asked {@link #SOLE_RUN} times in a row with no other request between or beside its own. Such a
 * peer gets a larger send buffer for a single large value ({@link io.kvpool.protocol.FrameChannel#fitSendBuffer}).
 * One repeat is not enough: with two or three connections taking turns at random, one often asks twice in a row.
 */
final class ServingLoad {
  /** Requests in a row from one session after which it counts as the only peer. */
  static final int SOLE_RUN = 4;
  private final AtomicInteger inService = new AtomicInteger();
  private final AtomicReference<Session> lastServed = new AtomicReference<>();

  /**
   * A request of {@code session} starts, after {@code run} requests in a row of the same session before it (0 for its
   * first); returns how many in a row there are now, this one included.
   */
  int begin(Session session, int run) {
    inService.incrementAndGet();
    return lastServed.getAndSet(session) == session ? run + 1 : 1;
  }

  /** The request that {@link #begin} started has been answered. */
  void end() {
    inService.decrementAndGet();
  }

  /** Requests in service now. */
  int inService() {
    return inService.get();
  }

  /** A closed session is not kept reachable as the last one served. */
  void forget(Session session) {
    lastServed.compareAndSet(session, null);
  }

  /** Whether a reply after {@code run} requests in a row of its session goes to the only peer being served. */
  boolean sole(int run) {
    return run >= SOLE_RUN && inService.get() == 1;
  }
}
