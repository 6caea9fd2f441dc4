package io.kvpool.protocol;

import java.util.List;

/** Storage node -> master: one chunk of the inventory of a registration; {@code last} ends it. */
public record RegisterInventory(
    byte[] registrationId,
    boolean last,
    List<InventoryObject> objects,
    List<Tombstone> tombstones) {
  public void encode(BodyWriter w) {
    w.bytes(registrationId)
        .bool(last)
        .list(objects, (b, o) -> o.encode(b))
        .list(tombstones, (b, t) -> t.encode(b));
  }

  public static RegisterInventory decode(BodyReader r) throws ProtocolException {
    RegisterInventory msg =
        new RegisterInventory(
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id"),
            r.bool(),
            r.list(
                ProtocolLimits.MAX_INVENTORY_CHUNK,
                InventoryObject.MIN_BYTES,
                InventoryObject::decode),
            r.list(ProtocolLimits.MAX_INVENTORY_CHUNK, Tombstone.MIN_BYTES, Tombstone::decode));
    r.finish();
    return msg;
  }
}
