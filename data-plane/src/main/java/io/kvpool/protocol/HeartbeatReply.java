package io.kvpool.protocol;

import java.util.List;

/**
 * Master -> storage node. {@code known == false} asks the node to register again. {@code released} lists replicas the
 * master freed (removed, evicted, revoked) so the node drops them from its inventory.
 */
public record HeartbeatReply(boolean known, long viewNumber, List<Location> released) {
  public void encode(BodyWriter w) {
    w.bool(known).i64(viewNumber).list(released, (b, l) -> l.encode(b));
  }

  public static HeartbeatReply decode(BodyReader r) throws ProtocolException {
    HeartbeatReply h = new HeartbeatReply(r.bool(), r.i64(),
        r.list(ProtocolLimits.MAX_INVENTORY, Location.MIN_BYTES, Location::decode));
    r.finish();
    return h;
  }
}
