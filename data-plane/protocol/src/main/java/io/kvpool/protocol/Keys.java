package io.kvpool.protocol;

import java.nio.charset.StandardCharsets;

/** The key rule: 1..{@link ProtocolLimits#MAX_KEY_BYTES} UTF-8 bytes. */
public final class Keys {
  private Keys() {}

  /** Null when {@code key} is a valid key, else why not. */
  public static String problem(String key) {
    if (key == null || key.isEmpty()) {
      return "key is empty";
    }
    if (key.length() * 3 <= ProtocolLimits.MAX_KEY_BYTES) {
      // a UTF-16 unit never takes more than 3 UTF-8 bytes: short keys need no encoding to check
      return null;
    }
    int bytes = key.getBytes(StandardCharsets.UTF_8).length;
    return bytes > ProtocolLimits.MAX_KEY_BYTES
        ? "key of " + bytes + " UTF-8 bytes exceeds the limit of " + ProtocolLimits.MAX_KEY_BYTES
        : null;
  }
}
