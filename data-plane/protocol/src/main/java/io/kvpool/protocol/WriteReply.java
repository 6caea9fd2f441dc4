package io.kvpool.protocol;

/**
 * Storage node -> writer, the reply of WRITE: the receipt when this write completed a verified
 * replica (else empty) and, from protocol 2.2, whether the node commits that replica at the master
 * itself (its COMMIT follows the reply), so that the writer needs no PUT_END for it (PROTOCOL.md,
 * "Commits by storage nodes").
 */
public record WriteReply(byte[] receipt, boolean committed) {
  /**
   * The protocol minor from which WRITE and WRITE_BATCH replies carry the commit flag and nodes
   * send COMMIT.
   */
  public static final int COMMIT_MINOR = 2;

  /** Encodes for a peer that agreed on protocol minor {@code minor}. */
  public void encode(BodyWriter w, int minor) {
    w.bytes(receipt);
    if (minor >= COMMIT_MINOR) {
      w.bool(committed);
    }
  }

  public static WriteReply decode(BodyReader r, int minor) throws ProtocolException {
    WriteReply reply =
        new WriteReply(
            r.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "receipt"), minor >= COMMIT_MINOR && r.bool());
    r.finish();
    return reply;
  }
}
