package io.kvpool.common;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
public final class Durations {
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

  private Durations() {}

  public static Duration parse(String text) {
    Matcher m = text == null ? null : DURATION.matcher(text.trim());
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(
          "duration '" + text + "' is not valid; use e.g. 500ms, 5s, 2m or 1h");
    }
    long value = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(value);
      case "s" -> Duration.ofSeconds(value);
      case "m" -> Duration.ofMinutes(value);
      default -> Duration.ofHours(value);
    };
  }
}
