package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.Frame;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.RpcConnection;
import java.io.IOException;
import java.time.Duration;

/** The client's one connection to the master; requests are serialised, a broken connection is reopened. */
final class MasterChannel implements AutoCloseable {
  private final HostPort master;
  private final Handshake local;
  private final Duration timeout;
  private RpcConnection connection;

  MasterChannel(HostPort master, Handshake local, Duration timeout) {
    this.master = master;
    this.local = local;
    this.timeout = timeout;
  }

  synchronized Handshake connect() {
    return ensure().peer();
  }

  private RpcConnection ensure() {
    if (connection == null || !connection.isUsable()) {
      if (connection != null) {
        connection.close();
      }
      try {
        connection = RpcConnection.open(master, local, timeout);
      } catch (IOException e) {
        connection = null;
        throw Failures.translate(e, master, "connecting to master");
      }
    }
    return connection;
  }

  /** A decoder of reply bodies. */
  @FunctionalInterface
  interface Decoder<T> {
    T decode(BodyReader r) throws IOException;
  }

  /**
   * One request/reply with the master. {@code idempotent} requests are re-sent once on a fresh connection when
   * the connection broke; others surface the failure (the caller decides how to recover).
   */
  synchronized <T> T call(Opcode op, BodyWriter body, Decoder<T> decoder, boolean idempotent) {
    int attempts = idempotent ? 2 : 1;
    for (int i = 1; ; i++) {
      RpcConnection c = ensure();
      try (RpcConnection.Deadline d = c.deadline(timeout)) {
        Frame reply = c.call(op, body);
        return decoder.decode(reply.reader());
      } catch (RemoteErrorException e) {
        throw Failures.translate(e, master, op.name());
      } catch (IOException e) {
        c.close();
        if (i >= attempts) {
          throw Failures.translate(e, master, op.name());
        }
      }
    }
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }
}
