package io.kvpool.client;

import io.kvpool.common.HostPort;
import io.kvpool.protocol.BodyReader;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.ConnectionSecurity;
import io.kvpool.protocol.ErrorCode;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeException;
import io.kvpool.protocol.HandshakeReply;
import io.kvpool.protocol.Opcode;
import io.kvpool.protocol.RemoteErrorException;
import io.kvpool.protocol.RpcConnection;
import io.kvpool.protocol.ServerState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The client's connections to the pool's leader. Each call borrows one (opening it when none is
 * idle), so threads sharing a client do not queue behind each other's round trips. When the leader
 * is lost (a closed connection, or a standby's NOT_LEADER) the channel moves through the configured
 * master endpoints with a jittered backoff until one leads, within the operation's deadline: every
 * master request of the protocol is safe to repeat (PUT_START carries the put's id, PUT_END is
 * idempotent per generation).
 */
final class MasterChannel implements AutoCloseable {
  private static final int MAX_IDLE = 16;

  /**
   * Pooled connections idle this long are dropped rather than reused (servers close idle ones after
   * 300 s).
   */
  private static final long MAX_IDLE_NANOS = Duration.ofSeconds(60).toNanos();

  private final List<HostPort> masters;
  private final Handshake local;
  private final ConnectionSecurity security;
  private final Duration timeout;
  private final Duration operationTimeout;
  private final ConcurrentLinkedDeque<Idle> idle = new ConcurrentLinkedDeque<>();
  private volatile int leader; // index into masters of the endpoint that led last
  private volatile boolean closed;

  private record Idle(RpcConnection connection, long sinceNanos) {}

  private final ClientMetrics metrics;

  MasterChannel(
      List<HostPort> masters,
      Handshake local,
      ConnectionSecurity security,
      Duration timeout,
      Duration operationTimeout,
      ClientMetrics metrics) {
    this.metrics = metrics;
    this.security = security;
    this.masters = masters;
    this.local = local;
    this.timeout = timeout;
    this.operationTimeout = operationTimeout;
  }

  /**
   * Opens the first connection now, so an unreachable or incompatible master fails here, within
   * {@code within} (the operation timeout, or the config's fail-fast connect timeout); the master's
   * handshake.
   */
  Handshake connect(Duration within) {
    // STATS, not PING: a standby refuses it
    return call(
        Opcode.STATS, null, (r, minor) -> null, c -> c.peer(), Backoff.until(within), () -> {});
  }

  private RpcConnection open(HostPort endpoint, Duration exchangeTimeout) throws IOException {
    return RpcConnection.open(endpoint, local, 0, security, exchangeTimeout);
  }

  private RpcConnection borrow(Duration exchangeTimeout) throws IOException {
    Idle i;
    while ((i = idle.pollFirst()) != null) {
      if (i.connection().isUsable() && System.nanoTime() - i.sinceNanos() < MAX_IDLE_NANOS) {
        return i.connection();
      }
      i.connection().close();
    }
    RpcConnection c = open(masters.get(leader % masters.size()), exchangeTimeout);
    HandshakeReply hello = c.peerReply();
    if (hello.state() == ServerState.STANDBY && !hello.leaderEndpoint().isEmpty()) {
      // a standby names the leader: go there at once instead of trying the other endpoints
      c.close();
      return open(HostPort.parse(hello.leaderEndpoint()), exchangeTimeout);
    }
    return c;
  }

  private void release(RpcConnection c) {
    if (closed || !c.isUsable() || idle.size() >= MAX_IDLE) {
      c.close();
      return;
    }
    idle.offerFirst(new Idle(c, System.nanoTime()));
    if (closed) {
      closeIdle(); // close() ran between the check and the offer
    }
  }

  private void closeIdle() {
    Idle i;
    while ((i = idle.pollFirst()) != null) {
      i.connection().close();
    }
  }

  /** A decoder of reply bodies. */
  @FunctionalInterface
  interface Decoder<T> {
    T decode(BodyReader r) throws IOException;
  }

  /** A decoder of reply bodies whose encoding depends on the protocol minor of the connection. */
  @FunctionalInterface
  interface VersionedDecoder<T> {
    T decode(BodyReader r, int agreedMinor) throws IOException;
  }

  /** Reads something off the connection after a successful exchange. */
  @FunctionalInterface
  interface After<T> {
    T apply(RpcConnection c);
  }

  /** One exchange of an operation of its own (its own operation timeout). */
  <T> T call(Opcode op, BodyWriter body, Decoder<T> decoder) {
    return call(op, body, plain(decoder), null, Backoff.until(operationTimeout), () -> {});
  }

  /**
   * One exchange of an operation of its own whose reply is decoded in the dialect of the master
   * that answers it (the minor its connection agreed on: a failover may reach a master of another
   * minor than the first one).
   */
  <T> T callVersioned(Opcode op, BodyWriter body, VersionedDecoder<T> decoder) {
    return call(op, body, decoder, null, Backoff.until(operationTimeout), () -> {});
  }

  private static <T> VersionedDecoder<T> plain(Decoder<T> decoder) {
    return (r, minor) -> decoder.decode(r);
  }

  /**
   * One exchange of an operation whose deadline is {@code operation}: failovers are followed until
   * then, no longer.
   */
  <T> T call(Opcode op, BodyWriter body, Decoder<T> decoder, Backoff operation) {
    return call(op, body, plain(decoder), null, operation, () -> {});
  }

  /**
   * As {@link #call(Opcode, BodyWriter, Decoder, Backoff)}; {@code unanswered} runs whenever an
   * attempt failed after its request may have reached a master (the connection broke while sending
   * or awaiting the reply), so the master may have applied it before the answer that follows from
   * another attempt.
   */
  <T> T call(
      Opcode op, BodyWriter body, Decoder<T> decoder, Backoff operation, Runnable unanswered) {
    return call(op, body, plain(decoder), null, operation, unanswered);
  }

  static void expectCount(int got, int expected, Opcode op) {
    if (got != expected) {
      throw new KvPoolException(
          "master answered " + op + " with " + got + " results for " + expected + " keys");
    }
  }

  /**
   * One request/reply with the leader, following it across failovers until the operation's
   * deadline; each attempt takes at most the exchange timeout, cut to what is left of the
   * operation. A refusal other than NOT_LEADER, a version or pool mismatch and a refused
   * authentication are final.
   */
  private <T> T call(
      Opcode op,
      BodyWriter body,
      VersionedDecoder<T> decoder,
      After<T> after,
      Backoff backoff,
      Runnable unanswered) {
    IOException last = null;
    int misses = 0;
    while (true) {
      RpcConnection c = null;
      boolean sending = false;
      try {
        Duration exchange = backoff.within(timeout);
        c = borrow(exchange);
        T result;
        // the deadline is disarmed before the connection goes back to the pool, where another
        // thread may arm it
        try (RpcConnection.Deadline d = c.deadline(exchange)) {
          long started = System.nanoTime();
          sending = true;
          int agreedMinor =
              Math.min(c.peer().version().protocolMinor(), local.version().protocolMinor());
          T decoded = decoder.decode(c.call(op, body).reader(), agreedMinor);
          metrics.exchange(op, System.nanoTime() - started);
          result = after == null ? decoded : after.apply(c);
        }
        release(c);
        return result;
      } catch (RemoteErrorException e) {
        if (c != null) {
          release(c);
        }
        if (e.code() != ErrorCode.NOT_LEADER) {
          throw Failures.translate(e, masters.get(leader % masters.size()), op.name());
        }
        last = e;
      } catch (HandshakeException e) {
        if (c != null) {
          c.close();
        }
        if (e.code() == ErrorCode.VERSION_MISMATCH
            || e.code() == ErrorCode.POOL_MISMATCH
            || e.code() == ErrorCode.AUTH_REQUIRED
            || e.code() == ErrorCode.AUTH_FAILED) {
          throw Failures.translate(e, masters.get(leader % masters.size()), "connecting to master");
        }
        last = e;
      } catch (IOException e) {
        if (c != null) {
          c.close();
        }
        if (sending) {
          unanswered.run();
        }
        last = e;
      }
      // this endpoint does not lead (or is gone): drop its pooled connections, try the next one
      closeIdle();
      leader = (leader + 1) % masters.size();
      if (++misses >= masters.size() && !backoff.pause()) {
        throw Failures.translate(
            last,
            masters.get(leader % masters.size()),
            op.name()
                + " (no leading master among "
                + masters
                + " within the operation's deadline)");
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    closeIdle();
  }
}
