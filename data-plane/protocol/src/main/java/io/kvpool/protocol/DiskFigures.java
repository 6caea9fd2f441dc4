package io.kvpool.protocol;

import java.nio.charset.StandardCharsets;

/**
 * A storage node's disk tier as its heartbeat reports it (protocol 2.4): the cap, the bytes its
 * files occupy, and why it is degraded (empty while healthy).
 */
public record DiskFigures(long capacityBytes, long usedBytes, String degraded) {
  /** Longest reason a heartbeat carries, in bytes of UTF-8. */
  public static final int MAX_REASON_BYTES = 512;

  public DiskFigures {
    if (capacityBytes < 0 || usedBytes < 0) {
      throw new IllegalArgumentException(
          "disk figures must not be negative: capacity " + capacityBytes + ", used " + usedBytes);
    }
    degraded = degraded == null ? "" : truncated(degraded);
  }

  public boolean healthy() {
    return degraded.isEmpty();
  }

  void encode(BodyWriter w) {
    w.i64(capacityBytes).i64(usedBytes).string(degraded);
  }

  static DiskFigures decode(BodyReader r) throws ProtocolException {
    return new DiskFigures(
        r.length(Long.MAX_VALUE, "disk capacity"),
        r.length(Long.MAX_VALUE, "disk used"),
        r.string(MAX_REASON_BYTES, "disk degraded reason"));
  }

  /** The reason cut to {@link #MAX_REASON_BYTES} bytes of UTF-8, on a character boundary. */
  private static String truncated(String reason) {
    String s = reason;
    while (s.getBytes(StandardCharsets.UTF_8).length > MAX_REASON_BYTES) {
      s = s.substring(0, s.length() - Math.max(1, s.length() / 16));
    }
    return s;
  }
}
