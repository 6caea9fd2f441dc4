package io.kvpool.bench.capacity;

/**
 * The capacity bench's keys: {@code obj/} and ten digits, 14 characters, the length the issue's
 * bytes-per-object figure was measured with.
 */
final class CapacityKeys {
  static final int LENGTH = 14;

  private CapacityKeys() {}

  static String key(int number) {
    char[] c = {'o', 'b', 'j', '/', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0'};
    int n = number;
    for (int i = LENGTH - 1; n > 0; i--) {
      c[i] = (char) ('0' + n % 10);
      n /= 10;
    }
    return new String(c);
  }
}
