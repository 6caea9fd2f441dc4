package io.kvpool.protocol;

import java.util.ArrayList;
import java.util.List;

/**
 * Client -> master, protocol 2.3 (PUT_START_META): PUT_START with each item's optional {@link
 * BlockMetadata}, kept with the object for the master's KV events. A message of its own so that
 * PUT_START's layout stays that of 2.2; answered exactly as PUT_START. {@code metadata} has one
 * entry per item, null where an item carries none.
 */
public record PutStartMetaRequest(List<PutStartItem> items, List<BlockMetadata> metadata) {
  /** The protocol minor that has this message. */
  public static final int MINOR = 3;

  public PutStartMetaRequest {
    items = List.copyOf(items);
    metadata = java.util.Collections.unmodifiableList(new ArrayList<>(metadata));
    if (metadata.size() != items.size()) {
      throw new IllegalArgumentException(
          items.size() + " items but " + metadata.size() + " metadata entries");
    }
  }

  public void encode(BodyWriter w) {
    w.list(items, (b, i) -> i.encode(b));
    w.list(
        metadata,
        (b, m) -> {
          b.bool(m != null);
          if (m != null) {
            m.encode(b);
          }
        });
  }

  public static PutStartMetaRequest decode(BodyReader r) throws ProtocolException {
    List<PutStartItem> items =
        r.list(ProtocolLimits.MAX_BATCH, PutStartItem.MIN_BYTES, PutStartItem::decode);
    List<BlockMetadata> metadata =
        r.list(ProtocolLimits.MAX_BATCH, 1, x -> x.bool() ? BlockMetadata.decode(x) : null);
    r.finish();
    if (metadata.size() != items.size()) {
      throw new ProtocolException(
          items.size() + " items but " + metadata.size() + " metadata entries");
    }
    return new PutStartMetaRequest(items, metadata);
  }
}
