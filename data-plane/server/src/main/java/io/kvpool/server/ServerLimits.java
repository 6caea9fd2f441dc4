package io.kvpool.server;

import java.time.Duration;

/**
 * What one RPC server lets its peers take (PROTOCOL.md, "Deadlines and connection caps"): time for a handshake, for a
 * frame once its first byte arrived, for a payload (a base plus a per-MiB allowance), and between requests; how many
 * connections may sit in their handshake and how many sessions may be established; how many bytes of large control
 * bodies all connections may hold at once.
 */
public record ServerLimits(Duration handshakeTimeout, Duration frameTimeout, Duration idleTimeout,
                           Duration payloadTimeout, Duration payloadTimePerMiB, int maxHandshaking, int maxSessions,
                           int bodyBudgetBytes) {
  public static final ServerLimits DEFAULTS = new ServerLimits(Duration.ofSeconds(10), Duration.ofSeconds(30),
      Duration.ofSeconds(300), Duration.ofSeconds(30), Duration.ofSeconds(1), 256, 2048, 256 << 20);

  public ServerLimits {
    for (Duration d : new Duration[] {handshakeTimeout, frameTimeout, idleTimeout, payloadTimeout}) {
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("server deadlines must be positive, got " + d);
      }
    }
    if (maxHandshaking < 1 || maxSessions < 1 || bodyBudgetBytes < (64 << 10)) {
      throw new IllegalArgumentException("connection caps must be at least 1 and the body budget at least 64 KiB");
    }
  }

  /** These limits with the three configurable deadlines replaced. */
  public ServerLimits withDeadlines(Duration handshake, Duration frame, Duration idle) {
    return new ServerLimits(handshake, frame, idle, payloadTimeout, payloadTimePerMiB, maxHandshaking, maxSessions,
        bodyBudgetBytes);
  }

  /** Time allowed for a payload of {@code bytes}. */
  public long payloadNanos(long bytes) {
    return payloadTimeout.toNanos() + payloadTimePerMiB.toNanos() * ((bytes + (1 << 20) - 1) >> 20);
  }
}
