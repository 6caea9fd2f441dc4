package io.kvpool.storage;

import io.kvpool.protocol.RpcConnection;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts requests that use segment memory and tracks outbound copy connections, so that shutdown
 * can stop new requests, cut copies (their sockets read from segment views) and wait for the rest
 * before the segments are unmapped: unmapping under a running copy would crash the JVM.
 */
final class InFlight {
  private final Set<RpcConnection> copies = ConcurrentHashMap.newKeySet();
  private int active;
  private boolean closed;

  synchronized boolean enter() {
    if (closed) {
      return false;
    }
    active++;
    return true;
  }

  synchronized void exit() {
    active--;
    if (active == 0) {
      notifyAll();
    }
  }

  /** Registers an outbound copy connection, closed at shutdown; {@link #untrack} it when done. */
  void track(RpcConnection c) {
    copies.add(c);
  }

  void untrack(RpcConnection c) {
    copies.remove(c);
  }

  /** True when every request finished within {@code timeout}. */
  boolean closeAndAwait(Duration timeout) throws InterruptedException {
    synchronized (this) {
      closed = true;
    }
    copies.forEach(RpcConnection::close);
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (active > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        wait(Math.max(1, left / 1_000_000));
      }
    }
    return true;
  }
}
