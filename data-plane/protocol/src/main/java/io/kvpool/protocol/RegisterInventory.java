package io.kvpool.protocol;

import io.kvpool.common.VersionInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Storage node -> master: one chunk of the inventory of a registration; {@code last} ends it. From
 * protocol 2.5 the chunk ends with a list of (key, generation, {@link BlockMetadata}) naming its
 * objects that have block metadata; decoded, each is attached to its {@link InventoryObject}.
 */
public record RegisterInventory(
    byte[] registrationId,
    boolean last,
    List<InventoryObject> objects,
    List<Tombstone> tombstones) {
  /** The protocol minor from which a chunk carries its objects' block metadata. */
  public static final int METADATA_MINOR = 5;

  /** Smallest encoding of one metadata entry: a one-byte key, a generation, the metadata. */
  private static final int METADATA_ENTRY_MIN_BYTES = 3 + 8 + BlockMetadata.MIN_BYTES;

  /** Encodes for a master of this build's protocol minor. */
  public void encode(BodyWriter w) {
    encode(w, VersionInfo.PROTOCOL_MINOR);
  }

  /** Encodes for a master that agreed on protocol minor {@code minor}. */
  public void encode(BodyWriter w, int minor) {
    w.bytes(registrationId)
        .bool(last)
        .list(objects, (b, o) -> o.encode(b))
        .list(tombstones, (b, t) -> t.encode(b));
    if (minor >= METADATA_MINOR) {
      w.list(
          objects.stream().filter(o -> o.metadata() != null).toList(),
          (b, o) -> {
            b.string(o.key()).i64(o.generation());
            o.metadata().encode(b);
          });
    }
  }

  /** Decodes a chunk of this build's protocol minor. */
  public static RegisterInventory decode(BodyReader r) throws ProtocolException {
    return decode(r, VersionInfo.PROTOCOL_MINOR);
  }

  /**
   * Decodes a chunk from a node that agreed on protocol minor {@code minor}. A metadata entry that
   * names no object of the chunk, names one twice, or breaks a limit of "Block metadata" is
   * malformed: a node only lists what its writers' WRITEs carried, which it checked.
   */
  public static RegisterInventory decode(BodyReader r, int minor) throws ProtocolException {
    byte[] registrationId = r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "registration id");
    boolean last = r.bool();
    List<InventoryObject> objects =
        r.list(
            ProtocolLimits.MAX_INVENTORY_CHUNK, InventoryObject.MIN_BYTES, InventoryObject::decode);
    List<Tombstone> tombstones =
        r.list(ProtocolLimits.MAX_INVENTORY_CHUNK, Tombstone.MIN_BYTES, Tombstone::decode);
    if (minor >= METADATA_MINOR) {
      objects = attach(objects, r);
    }
    r.finish();
    return new RegisterInventory(registrationId, last, objects, tombstones);
  }

  private record Named(String key, long generation, BlockMetadata metadata) {}

  private static List<InventoryObject> attach(List<InventoryObject> objects, BodyReader r)
      throws ProtocolException {
    List<Named> entries =
        r.list(
            ProtocolLimits.MAX_INVENTORY_CHUNK,
            METADATA_ENTRY_MIN_BYTES,
            x -> new Named(x.key(), x.i64(), BlockMetadata.decode(x)));
    if (entries.isEmpty()) {
      return objects;
    }
    Map<String, Integer> index = new HashMap<>(objects.size() * 2);
    for (int i = 0; i < objects.size(); i++) {
      index.put(objects.get(i).key() + '\0' + objects.get(i).generation(), i);
    }
    List<InventoryObject> out = new ArrayList<>(objects);
    for (Named e : entries) {
      Integer at = index.get(e.key() + '\0' + e.generation());
      if (at == null || out.get(at).metadata() != null) {
        throw new ProtocolException(
            "inventory metadata for "
                + e.key()
                + " generation "
                + e.generation()
                + (at == null ? " names no object of its chunk" : " is listed twice"));
      }
      String problem = e.metadata().limitProblem();
      if (problem != null) {
        throw new ProtocolException("inventory metadata for " + e.key() + ": " + problem);
      }
      out.set(at, out.get(at).withMetadata(e.metadata()));
    }
    return out;
  }
}
