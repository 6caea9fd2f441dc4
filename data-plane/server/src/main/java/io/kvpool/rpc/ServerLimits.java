package io.kvpool.rpc;

import io.kvpool.protocol.ProtocolLimits;
import java.time.Duration;

/**
 * What one RPC server lets its peers take (PROTOCOL.md, "Deadlines and connection caps"): time for
 * a handshake, for a frame once its first byte arrived, for a payload (a base plus a per-MiB
 * allowance), and between requests; how many connections may sit in their handshake and how many
 * sessions may be established; how many bytes of large control bodies all client connections may
 * hold at once, and all connections of storage nodes and masters (a budget of their own, so that
 * clients can never make a node's registration wait).
 */
public record ServerLimits(
    Duration handshakeTimeout,
    Duration frameTimeout,
    Duration idleTimeout,
    Duration payloadTimeout,
    Duration payloadTimePerMiB,
    int maxHandshaking,
    int maxSessions,
    int bodyBudgetBytes,
    int controlBodyBudgetBytes) {
  /** The control budget's default: one body of the largest size a frame may have fits it alone. */
  public static final int CONTROL_BODY_BUDGET_BYTES = ProtocolLimits.MAX_BODY_BYTES;

  public static final ServerLimits DEFAULTS =
      new ServerLimits(
          Duration.ofSeconds(10),
          Duration.ofSeconds(30),
          Duration.ofSeconds(300),
          Duration.ofSeconds(30),
          Duration.ofSeconds(1),
          256,
          2048,
          256 << 20);

  public ServerLimits {
    for (Duration d :
        new Duration[] {handshakeTimeout, frameTimeout, idleTimeout, payloadTimeout}) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("server deadlines must be positive, got " + d);
      }
    }
    if (maxHandshaking < 1
        || maxSessions < 1
        || bodyBudgetBytes < (64 << 10)
        || controlBodyBudgetBytes < (64 << 10)) {
      throw new IllegalArgumentException(
          "connection caps must be at least 1 and the body budgets at least 64 KiB");
    }
  }

  /** Limits with the default control budget. */
  public ServerLimits(
      Duration handshakeTimeout,
      Duration frameTimeout,
      Duration idleTimeout,
      Duration payloadTimeout,
      Duration payloadTimePerMiB,
      int maxHandshaking,
      int maxSessions,
      int bodyBudgetBytes) {
    this(
        handshakeTimeout,
        frameTimeout,
        idleTimeout,
        payloadTimeout,
        payloadTimePerMiB,
        maxHandshaking,
        maxSessions,
        bodyBudgetBytes,
        CONTROL_BODY_BUDGET_BYTES);
  }

  /** These limits with the three configurable deadlines replaced. */
  public ServerLimits withDeadlines(Duration handshake, Duration frame, Duration idle) {
    return new ServerLimits(
        handshake,
        frame,
        idle,
        payloadTimeout,
        payloadTimePerMiB,
        maxHandshaking,
        maxSessions,
        bodyBudgetBytes,
        controlBodyBudgetBytes);
  }

  /**
   * Payload bytes a reply's write deadline allows time for at most: the largest value. Without a
   * cap a READ_BATCH of many large values (4096 of up to 1 GiB each) could hold a worker, a send
   * buffer and the read pins of its ranges for days; with it no reply may take longer than one read
   * of the largest value.
   */
  public static final long MAX_REPLY_ALLOWANCE_BYTES = ProtocolLimits.MAX_VALUE_BYTES;

  /**
   * Time allowed for a reply with a payload of {@code payloadBytes} to be read by its peer: the
   * frame deadline plus the payload allowance, counted for at most {@link
   * #MAX_REPLY_ALLOWANCE_BYTES}.
   */
  public long replyNanos(long payloadBytes) {
    return frameTimeout.toNanos() + payloadNanos(Math.min(payloadBytes, MAX_REPLY_ALLOWANCE_BYTES));
  }

  /** Time allowed for a payload of {@code bytes}. */
  public long payloadNanos(long bytes) {
    return payloadTimeout.toNanos() + payloadTimePerMiB.toNanos() * ((bytes + (1 << 20) - 1) >> 20);
  }
}
