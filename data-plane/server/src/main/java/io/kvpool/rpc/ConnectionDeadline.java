package io.kvpool.rpc;

import io.kvpool.protocol.DeadlineWatchdog;
import java.nio.channels.SocketChannel;

/**
 * The one deadline a served connection has at any moment (handshake, idle, frame, payload, write),
 * and why: when it passes, the watchdog closes the socket and the blocked reader or writer fails;
 * {@link #expiredReason()} then says which deadline it was, for the log and the metrics.
 */
final class ConnectionDeadline {
  private final DeadlineWatchdog.Watched watched;
  private volatile String reason = "";

  ConnectionDeadline(SocketChannel channel) {
    this.watched = DeadlineWatchdog.watch(channel);
  }

  void arm(String why, long nanos) {
    reason = why;
    watched.arm(nanos);
  }

  void disarm() {
    watched.disarm();
  }

  /** The reason of the deadline that closed the connection, or null when none did. */
  String expiredReason() {
    return watched.expired() ? reason : null;
  }

  void forget() {
    DeadlineWatchdog.unwatch(watched);
  }
}
