package io.kvpool.protocol;

/**
 * Until when a put may still be acknowledged, by a master's PUT_END of an object it adopted from an
 * inventory or by a storage node's COMMIT: its grant's expiry less a margin for the clocks of the
 * masters and nodes (a quarter of the put's pending time, at most 5 s). Past it an earlier leader
 * may have revoked the put, so acknowledging it could acknowledge a value that a tombstone later
 * deletes.
 */
public final class PutDeadline {
  private static final long MAX_MARGIN_MILLIS = 5_000;

  private PutDeadline() {}

  /**
   * The master time (ms) at which {@code generation} was issued (generations are {@code max(last +
   * 1, ms << 20)}).
   */
  public static long issuedAtMillis(long generation) {
    return generation >> 20;
  }

  /**
   * The last master time (ms) at which the put of {@code generation}, expiring at {@code
   * expiresAtMillis}, may be acknowledged.
   */
  public static long ackCutoffMillis(long generation, long expiresAtMillis) {
    long pending = Math.max(0, expiresAtMillis - issuedAtMillis(generation));
    return expiresAtMillis - Math.min(pending / 4, MAX_MARGIN_MILLIS);
  }
}
