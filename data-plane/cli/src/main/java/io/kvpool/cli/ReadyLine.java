package io.kvpool.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The one stdout line a data-plane process prints once it serves, e.g. {@code KVPOOL_READY storage
 * node=n1 rpc=127.0.0.1:4100 admin=127.0.0.1:4101}.
 */
public record ReadyLine(String role, Map<String, String> fields) {

  static final String MARKER = "KVPOOL_READY";

  /** Parses a log line; empty when the line is not a ready line. */
  public static Optional<ReadyLine> parse(String line) {
    String trimmed = line.strip();
    if (!trimmed.startsWith(MARKER + " ")) {
      return Optional.empty();
    }
    String[] words = trimmed.substring(MARKER.length()).strip().split("\\s+");
    Map<String, String> fields = new LinkedHashMap<>();
    for (int i = 1; i < words.length; i++) {
      int eq = words[i].indexOf('=');
      if (eq > 0) {
        fields.put(words[i].substring(0, eq), words[i].substring(eq + 1));
      }
    }
    return Optional.of(new ReadyLine(words[0], Map.copyOf(fields)));
  }

  /** A field the process must have announced, such as {@code rpc} or {@code admin}. */
  public String require(String name) {
    String value = fields.get(name);
    if (value == null) {
      throw new PoolProcessException(
          "ready line of role "
              + role
              + " lacks field '"
              + name
              + "' (got "
              + fields
              + "); the process and this CLI disagree on the ready-line format");
    }
    return value;
  }
}
