package io.kvpool.protocol;

/** The one place that decides whether two handshakes may talk. */
public final class HandshakeRules {
  private HandshakeRules() {}

  /**
   * Null when compatible, else the refusal (version first, then pool). An empty pool id means "any
   * pool".
   */
  public static HandshakeException check(Handshake local, Handshake peer) {
    String versionProblem = local.version().incompatibilityWith(peer.version());
    if (versionProblem != null) {
      return new HandshakeException(ErrorCode.VERSION_MISMATCH, versionProblem);
    }
    if (!local.poolId().isEmpty()
        && !peer.poolId().isEmpty()
        && !local.poolId().equals(peer.poolId())) {
      return new HandshakeException(
          ErrorCode.POOL_MISMATCH,
          "pool id mismatch: local pool '"
              + local.poolId()
              + "', peer pool '"
              + peer.poolId()
              + "' (connect to the right master or fix --pool-id)");
    }
    return null;
  }
}
