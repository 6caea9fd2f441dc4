package io.kvpool.protocol;

/** Hard limits of the wire protocol; a frame that exceeds one closes its connection. */
public final class ProtocolLimits {
  /** Fixed frame header size in bytes. */
  public static final int HEADER_BYTES = 24;
  /** Largest control body (value bytes travel as a separate payload and are not counted). */
  public static final int MAX_BODY_BYTES = 64 << 20;
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
  /** Largest storage-node inventory carried by one registration. */
  public static final int MAX_INVENTORY = 4_000_000;

  private ProtocolLimits() {
  }
}
