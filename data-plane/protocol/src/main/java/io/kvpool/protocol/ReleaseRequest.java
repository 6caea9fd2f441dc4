package io.kvpool.protocol;

import java.util.List;

/**
 * Master -> storage node (RELEASE): releases the leader delivers before it answers a REMOVE, so
 * that the node's tombstone, which the next leader learns from its inventory, exists before the
 * client is told the object is gone. The reply is empty. At most {@link ProtocolLimits#MAX_BATCH}
 * releases, as many as one REMOVE names. An optional request: a node of an earlier release answers
 * UNKNOWN_OPCODE and takes the releases with its next heartbeat.
 */
public record ReleaseRequest(List<Release> releases) {
  /**
   * Encodes for a node that agreed on protocol minor {@code minor} (releases carry a kind from
   * 2.3).
   */
  public void encode(BodyWriter w, int minor) {
    w.list(releases, (b, x) -> x.encode(b, minor));
  }

  public static ReleaseRequest decode(BodyReader r, int minor) throws ProtocolException {
    ReleaseRequest q =
        new ReleaseRequest(
            r.list(ProtocolLimits.MAX_BATCH, Release.MIN_BYTES, x -> Release.decode(x, minor)));
    r.finish();
    return q;
  }
}
