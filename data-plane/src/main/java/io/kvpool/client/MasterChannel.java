package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The client's connections to the master. Each call borrows one (opening it when none is idle), so threads sharing
 * a client do not queue behind each other's round trips; the master serves every connection on its own thread. A
 * connection that failed is closed, never reused.
 */
final class MasterChannel implements AutoCloseable {
  private static final int MAX_IDLE = 16;

  private final HostPort master;
  private final Handshake local;
  private final Duration timeout;
  private final ConcurrentLinkedDeque<RpcConnection> idle = new ConcurrentLinkedDeque<>();
  private volatile boolean closed;

  MasterChannel(HostPort master, Handshake local, Duration timeout) {
    this.master = master;
    this.local = local;
    this.timeout = timeout;
  }

  /** Opens the first connection now, so an unreachable or incompatible master fails here; the master's handshake. */
  Handshake connect() {
    RpcConnection c = open();
    release(c);
    return c.peer();
  }

  private RpcConnection open() {
    try {
      return RpcConnection.open(master, local, timeout);
    } catch (IOException e) {
      throw Failures.translate(e, master, "connecting to master");
    }
  }

  private RpcConnection borrow() {
    RpcConnection c;
    while ((c = idle.pollFirst()) != null) {
      if (c.isUsable()) {
        return c;
      }
      c.close();
    }
    return open();
  }

  private void release(RpcConnection c) {
    if (closed || !c.isUsable() || idle.size() >= MAX_IDLE) {
      c.close();
      return;
    }
    idle.offerFirst(c);
    if (closed) {
      closeIdle(); // close() ran between the check and the offer
    }
  }

  private void closeIdle() {
    RpcConnection c;
    while ((c = idle.pollFirst()) != null) {
      c.close();
    }
  }

  /** A decoder of reply bodies. */
  @FunctionalInterface
  interface Decoder<T> {
    T decode(BodyReader r) throws IOException;
  }

  /**
   * One request/reply with the master. {@code idempotent} requests are re-sent once on a new connection when the
   * connection broke; others surface the failure (the caller decides how to recover).
   */
  <T> T call(Opcode op, BodyWriter body, Decoder<T> decoder, boolean idempotent) {
    int attempts = idempotent ? 2 : 1;
    for (int i = 1; ; i++) {
      // a retry gets a new connection: idle ones are likely as dead as the one that just failed
      RpcConnection c = i == 1 ? borrow() : open();
      T result;
      // the deadline is disarmed before the connection goes back to the pool, where another thread may arm it
      try (RpcConnection.Deadline d = c.deadline(timeout)) {
        result = decoder.decode(c.call(op, body).reader());
      } catch (RemoteErrorException e) {
        release(c);
        throw Failures.translate(e, master, op.name());
      } catch (IOException e) {
        c.close();
        closeIdle();
        if (i >= attempts) {
          throw Failures.translate(e, master, op.name());
        }
        continue;
      } catch (RuntimeException e) {
        c.close();
        throw e;
      }
      release(c);
      return result;
    }
  }

  @Override
  public void close() {
    closed = true;
    closeIdle();
  }
}
