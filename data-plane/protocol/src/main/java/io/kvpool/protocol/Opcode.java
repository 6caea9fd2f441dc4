package io.kvpool.protocol;

/** Request kinds. A reply carries the opcode of its request with the RESPONSE flag. */
public enum Opcode {
  HANDSHAKE(1),
  PING(2),
  AUTH(3),
  // storage node -> master
  REGISTER_NODE(10),
  HEARTBEAT(11),
  REGISTER_INVENTORY(12),
  // protocol 2.2: the receipts of replicas a node completed for clients, one-way (no reply)
  COMMIT(13),
  // protocol 2.3: replicas a node's disk tier lost (reclaimed, failed, corrupt), one-way (no reply)
  DISK_DROP(14),
  // client -> master
  PUT_START(20),
  PUT_END(21),
  PUT_REVOKE(22),
  GET_REPLICAS(23),
  EXISTS(24),
  REMOVE(25),
  REMOVE_ALL(26),
  PIN(27),
  STATS(28),
  // protocol 2.3: PUT_START with block metadata for the master's KV events
  PUT_START_META(29),
  // client / master / storage -> storage node
  WRITE(40),
  READ(41),
  REPLICATE(42),
  // protocol 2.1: many reads or writes of one node in one exchange
  READ_BATCH(43),
  WRITE_BATCH(44),
  // master -> storage, the releases of a REMOVE delivered before it is answered (optional: see
  // ReleaseRequest)
  RELEASE(45),
  // protocol 2.3: a whole value by its object (key, generation), from memory or the node's disk
  // tier
  READ_OBJECT(46),
  // protocol 2.4, client -> master: remove the objects whose keys match an RE2 pattern
  REMOVE_MATCHING(47),
  // protocol 2.4: small puts through extents granted ahead (PROTOCOL.md, "Extents")
  EXTENT_GRANT(50),
  EXTENT_WRITE(51),
  EXTENT_COMMIT(52),
  EXTENT_RETURN(53);

  private static final Opcode[] BY_CODE = new Opcode[64];

  static {
    for (Opcode o : values()) {
      BY_CODE[o.code] = o;
    }
  }

  private final int code;

  Opcode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /**
   * Null when the code is not a known opcode (the frame is well formed; the request is refused).
   */
  public static Opcode fromCode(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
  }
}
