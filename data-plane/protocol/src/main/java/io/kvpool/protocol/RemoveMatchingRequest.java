package io.kvpool.protocol;

import java.nio.charset.StandardCharsets;

/**
 * Client -> master, protocol 2.4 (REMOVE_MATCHING): remove every stored object whose key contains a
 * match of {@code pattern}, an RE2 regular expression (matched without backtracking, in time linear
 * in the key). Objects under a read lease, being copied or still being written are kept, as REMOVE
 * keeps them.
 */
public record RemoveMatchingRequest(String pattern) {
  /** The protocol minor that has this message. */
  public static final int MINOR = 4;

  /** Longest pattern, in UTF-8 bytes. */
  public static final int MAX_PATTERN_BYTES = 1024;

  /** Why {@code pattern} may not be sent (null: it may); the master answers LIMIT_EXCEEDED. */
  public static String limitProblem(String pattern) {
    int bytes = pattern.getBytes(StandardCharsets.UTF_8).length;
    if (bytes == 0 || bytes > MAX_PATTERN_BYTES) {
      return "pattern of "
          + bytes
          + " bytes; 1.."
          + MAX_PATTERN_BYTES
          + " UTF-8 bytes allowed in REMOVE_MATCHING";
    }
    return null;
  }

  public void encode(BodyWriter w) {
    w.string(pattern);
  }

  /**
   * A pattern longer than the limit (but within a u16) is decoded and answered LIMIT_EXCEEDED, not
   * closed.
   */
  public static RemoveMatchingRequest decode(BodyReader r) throws ProtocolException {
    RemoveMatchingRequest m = new RemoveMatchingRequest(r.string(0xFFFF, "pattern"));
    r.finish();
    return m;
  }
}
