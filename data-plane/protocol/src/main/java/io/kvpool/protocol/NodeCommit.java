package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> master, one-way (protocol 2.2): receipts of replicas the node completed and
 * verified for clients of protocol 2.2, on behalf of one registration; the master completes a
 * pending put once every replica it placed is committed (PROTOCOL.md, "Commits by storage nodes").
 * The master never replies.
 */
public record NodeCommit(String nodeId, byte[] registrationId, List<Item> items) {
  /** One replica: the object and the node's receipt for it. */
  public record Item(String key, long generation, byte[] receipt) {
    static final int MIN_BYTES = 2 + 8 + 2;
  }

  public void encode(BodyWriter w) {
    w.string(nodeId)
        .bytes(registrationId)
        .list(items, (b, i) -> b.string(i.key()).i64(i.generation()).bytes(i.receipt()));
  }

  public static NodeCommit decode(BodyReader r) throws ProtocolException {
    NodeCommit c =
        new NodeCommit(
            r.string(256, "node id"),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id"),
            r.list(
                ProtocolLimits.MAX_BATCH,
                Item.MIN_BYTES,
                x ->
                    new Item(
                        x.anyKey(), x.i64(), x.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "receipt"))));
    r.finish();
    return c;
  }
}
