package io.kvpool.protocol;

/** Hard limits of the wire protocol; a frame that exceeds one closes its connection. */
public final class ProtocolLimits {
  /** Fixed frame header size in bytes. */
  public static final int HEADER_BYTES = 24;

  /** Largest control body (value bytes travel as a separate payload and are not counted). */
  public static final int MAX_BODY_BYTES = 64 << 20;

  /**
   * Largest control body a server reads before the handshake completed (a HANDSHAKE needs far
   * less).
   */
  public static final int MAX_HANDSHAKE_BODY_BYTES = 4 << 10;

  /** Largest key, in UTF-8 bytes. */
  public static final int MAX_KEY_BYTES = 4096;

  /** Most entries in one batch request or reply. */
  public static final int MAX_BATCH = 4096;

  /** Most slices one replica may be split into. */
  public static final int MAX_SLICES = 64;

  /** Largest single value (one direct ByteBuffer view). */
  public static final int MAX_VALUE_BYTES = 1 << 30;

  /** Longest free-text string (error messages, endpoints, ids). */
  public static final int MAX_TEXT_BYTES = 8192;

  /** Longest grant token or key material. */
  public static final int MAX_TOKEN_BYTES = 64;

  /** Most objects (and, separately, tombstones) in one inventory chunk of a registration. */
  public static final int MAX_INVENTORY_CHUNK = 8192;

  /** Most releases in one heartbeat reply (more wait for the next heartbeat). */
  public static final int MAX_RELEASES = 65536;

  private ProtocolLimits() {}
}
