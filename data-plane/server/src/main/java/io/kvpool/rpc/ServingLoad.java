package io.kvpool.rpc;

import io.kvpool.protocol.SocketBuffers;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How many requests a server is answering, and for whom: what decides the send buffer of a large
 * reply to a peer on this machine ({@link #localSendBytes}). A connection that has asked {@link
 * #SOLE_RUN} times in a row, with no other request between or beside its own, is the only peer
 * served and gets a larger buffer for a single value; one repeat is not enough, since with two or
 * three connections taking turns at random one often asks twice in a row. With {@link #CROWDED}
 * requests or more in service every large reply gets the smallest buffer.
 */
final class ServingLoad {
  /** Requests in a row from one session after which it counts as the only peer. */
  static final int SOLE_RUN = 4;

  /** Requests in service from which the server counts as crowded. */
  static final int CROWDED = 3;

  private final AtomicInteger inService = new AtomicInteger();
  private final AtomicReference<Session> lastServed = new AtomicReference<>();

  /**
   * A request of {@code session} starts, after {@code run} requests in a row of the same session
   * before it (0 for its first); returns how many in a row there are now, this one included.
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

  /**
   * The send buffer, to a peer on this machine, of a large reply after {@code run} requests in a
   * row of its session; {@code oneValue}: the reply is a single value (a batch's reply, read header
   * first, does not gain from more).
   */
  int localSendBytes(int run, boolean oneValue) {
    int serving = inService.get();
    if (serving >= CROWDED) {
      return SocketBuffers.LOCAL_PEER_CROWDED_SEND_BYTES;
    }
    return oneValue && run >= SOLE_RUN && serving == 1
        ? SocketBuffers.LOCAL_PEER_SOLE_SEND_BYTES
        : SocketBuffers.LOCAL_PEER_SEND_BYTES;
  }
}
