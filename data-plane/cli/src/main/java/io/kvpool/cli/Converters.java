package io.kvpool.cli;

import io.kvpool.common.Durations;
import io.kvpool.common.HostPort;
import io.kvpool.common.Sizes;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Typed option values in the data plane's text forms. A bad value becomes picocli's "Invalid value
 * for option" with the parser's own explanation (what was wrong and an example), never a conversion
 * stack.
 */
public final class Converters {

  private Converters() {}

  /** {@code 4096}, {@code 64KiB}, {@code 256MiB}, {@code 4GiB}: bytes. */
  public static final class Size implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return Sizes.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
  public static final class Time implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      try {
        return Durations.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** One {@code HOST:PORT} ({@code [IPV6]:PORT}). */
  static final class Endpoint implements ITypeConverter<HostPort> {
    @Override
    public HostPort convert(String value) {
      try {
        return HostPort.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /**
   * Text of a duration that {@link Durations#parse} reads back, for child processes' command lines.
   */
  static String text(Duration duration) {
    return duration.toMillis() + "ms";
  }
}
