package io.kvpool.common;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses byte sizes: {@code 123}, {@code 64KiB}, {@code 1MiB}, {@code 4GiB} (also KB/MB/GB as
 * powers of 1024).
 */
public final class Sizes {
  private static final Pattern SIZE =
      Pattern.compile("(\\d+)\\s*([KMGT]i?B?|B)?", Pattern.CASE_INSENSITIVE);

  private Sizes() {}

  public static long parse(String text) {
    Matcher m = text == null ? null : SIZE.matcher(text.trim());
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(
          "size '" + text + "' is not valid; use e.g. 4096, 64KiB, 256MiB or 4GiB");
    }
    long value = Long.parseLong(m.group(1));
    String unit = m.group(2) == null ? "" : m.group(2).toUpperCase(Locale.ROOT);
    int shift =
        switch (unit.isEmpty() ? ' ' : unit.charAt(0)) {
          case 'K' -> 10;
          case 'M' -> 20;
          case 'G' -> 30;
          case 'T' -> 40;
          default -> 0;
        };
    if (shift > 0 && value > (Long.MAX_VALUE >> shift)) {
      throw new IllegalArgumentException("size '" + text + "' is too large");
    }
    return value << shift;
  }
}
