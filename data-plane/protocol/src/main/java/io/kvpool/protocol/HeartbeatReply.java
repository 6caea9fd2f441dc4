package io.kvpool.protocol;

import java.util.List;

/**
 * Master -> storage node. {@code known == false} asks the node to register again; a view different
 * from the one it registered with too. {@code releases} are objects the node must forget; {@code
 * more}: further releases wait.
 */
public record HeartbeatReply(
    boolean known, long view, long masterTimeMillis, boolean more, List<Release> releases) {
  public static HeartbeatReply unknown(long view, long masterTimeMillis) {
    return new HeartbeatReply(false, view, masterTimeMillis, false, List.of());
  }

  /**
   * Encodes for a node that agreed on protocol minor {@code minor} (releases carry a kind from
   * 2.3).
   */
  public void encode(BodyWriter w, int minor) {
    w.bool(known)
        .i64(view)
        .i64(masterTimeMillis)
        .bool(more)
        .list(releases, (b, x) -> x.encode(b, minor));
  }

  public static HeartbeatReply decode(BodyReader r, int minor) throws ProtocolException {
    HeartbeatReply h =
        new HeartbeatReply(
            r.bool(),
            r.i64(),
            r.i64(),
            r.bool(),
            r.list(ProtocolLimits.MAX_RELEASES, Release.MIN_BYTES, x -> Release.decode(x, minor)));
    r.finish();
    return h;
  }
}
