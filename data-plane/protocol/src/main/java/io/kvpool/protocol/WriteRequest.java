package io.kvpool.protocol;

import io.kvpool.common.VersionInfo;

/**
 * Client (or replicating node) -> storage node: the next {@code slice.length()} payload bytes after
 * this body are the bytes of object (key, generation) from {@code slice.valueOffset()}, to go to
 * (segment, offset). {@code replicas} is the object's wanted replica count (the node keeps it in
 * its inventory for lease recovery). The grant token must match exactly these fields, signed by the
 * master with the node's key. From protocol 2.5 a write may carry the object's {@link
 * BlockMetadata} (null: none), which the node keeps with the replica so that a new leader learns it
 * from the inventory; it is not part of the grant.
 */
public record WriteRequest(
    String key,
    long generation,
    Slice slice,
    int valueSize,
    int checksum,
    int replicas,
    long expiresAtMillis,
    byte[] token,
    BlockMetadata metadata) {
  /** The protocol minor from which WRITE (and each WRITE_BATCH item) carries block metadata. */
  public static final int METADATA_MINOR = 5;

  /** A write without block metadata. */
  public WriteRequest(
      String key,
      long generation,
      Slice slice,
      int valueSize,
      int checksum,
      int replicas,
      long expiresAtMillis,
      byte[] token) {
    this(key, generation, slice, valueSize, checksum, replicas, expiresAtMillis, token, null);
  }

  public static WriteRequest of(
      String key,
      long generation,
      SliceGrant g,
      int valueSize,
      int checksum,
      int replicas,
      long expiresAtMillis) {
    return new WriteRequest(
        key, generation, g.slice(), valueSize, checksum, replicas, expiresAtMillis, g.token());
  }

  /** This write with {@code metadata} attached. */
  public WriteRequest withMetadata(BlockMetadata metadata) {
    return new WriteRequest(
        key, generation, slice, valueSize, checksum, replicas, expiresAtMillis, token, metadata);
  }

  /** Encodes for a peer of this build's protocol minor. */
  public void encode(BodyWriter w) {
    encode(w, VersionInfo.PROTOCOL_MINOR);
  }

  /**
   * Encodes for a peer that agreed on protocol minor {@code minor}: before 2.5 the metadata stays
   * behind.
   */
  public void encode(BodyWriter w, int minor) {
    w.string(key).i64(generation);
    slice.encode(w);
    w.i32(valueSize).i32(checksum).u8(replicas).i64(expiresAtMillis).bytes(token);
    if (minor >= METADATA_MINOR) {
      w.bool(metadata != null);
      if (metadata != null) {
        metadata.encode(w);
      }
    }
  }

  /** Smallest encoding of one (a WRITE_BATCH item): a one-byte key and an empty token. */
  static final int MIN_BYTES = 3 + 8 + Slice.MIN_BYTES + 4 + 4 + 1 + 8 + 2;

  /** Decodes a WRITE body of this build's protocol minor. */
  public static WriteRequest decode(BodyReader r) throws ProtocolException {
    return decode(r, VersionInfo.PROTOCOL_MINOR);
  }

  /** Decodes a WRITE body from a peer that agreed on protocol minor {@code minor}. */
  public static WriteRequest decode(BodyReader r, int minor) throws ProtocolException {
    WriteRequest req = decodeFields(r, minor);
    r.finish();
    return req;
  }

  /**
   * The fields of one write, as a WRITE body or an item of a WRITE_BATCH. The slice's numbers and
   * the value size are taken as they come, negative or oversized, and so is metadata over a limit
   * ({@link BlockMetadata#limitProblem()}): the storage node answers such a write with an error
   * reply (PROTOCOL.md, "To a storage node") instead of closing the connection as for an
   * undecodable body.
   */
  static WriteRequest decodeFields(BodyReader r, int minor) throws ProtocolException {
    WriteRequest w =
        new WriteRequest(
            r.key(),
            r.i64(),
            new Slice(r.i32(), r.i64(), r.i32(), r.i32()),
            r.i32(),
            r.i32(),
            r.u8(),
            r.i64(),
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "grant token"));
    return minor >= METADATA_MINOR && r.bool() ? w.withMetadata(BlockMetadata.decode(r)) : w;
  }
}
