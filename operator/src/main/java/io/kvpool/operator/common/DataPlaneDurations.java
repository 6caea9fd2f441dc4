package io.kvpool.operator.common;

import io.kvpool.api.v1alpha1.ApiLimits;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as the data plane reads them: whole milliseconds, seconds or minutes ("500ms", "5s",
 * "10m").
 */
public final class DataPlaneDurations {
  private static final Pattern FORMAT =
      Pattern.compile(ApiLimits.DURATION_PATTERN.replace("[0-9]{1,7}", "([0-9]{1,7})"));

  private DataPlaneDurations() {}

  public static Optional<Duration> parse(String text) {
    Matcher matcher = text == null ? null : FORMAT.matcher(text);
    if (matcher == null || !matcher.matches()) {
      return Optional.empty();
    }
    long amount = Long.parseLong(matcher.group(1));
    return Optional.of(
        switch (matcher.group(2)) {
          case "ms" -> Duration.ofMillis(amount);
          case "s" -> Duration.ofSeconds(amount);
          default -> Duration.ofMinutes(amount);
        });
  }

  /** The shortest exact form: 10m, 3s or 500ms. */
  public static String format(Duration duration) {
    long millis = duration.toMillis();
    if (millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }
}
