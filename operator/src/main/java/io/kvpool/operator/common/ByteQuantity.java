package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;

/**
 * Byte counts in the canonical binary-suffix form the API server itself writes ("4Gi", "4608Mi").
 */
public final class ByteQuantity {
  private static final String[] SUFFIXES = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

  private ByteQuantity() {}

  /**
   * Exact form: the largest binary suffix that divides the value, so the server does not rewrite
   * it.
   */
  public static Quantity exact(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("a byte quantity cannot be negative, got " + bytes);
    }
    int suffix = 0;
    long value = bytes;
    while (value != 0 && value % 1024 == 0 && suffix < SUFFIXES.length - 1) {
      value /= 1024;
      suffix++;
    }
    return new Quantity(value + SUFFIXES[suffix]);
  }

  /** Short human form for status columns, e.g. 12Gi or 1.5Gi (at most one decimal). */
  public static String display(long bytes) {
    if (bytes < 1024) {
      return bytes + "";
    }
    double value = bytes;
    int suffix = 0;
    while (value >= 1024 && suffix < SUFFIXES.length - 1) {
      value /= 1024;
      suffix++;
    }
    double rounded = Math.round(value * 10) / 10.0;
    String number =
        rounded == Math.rint(rounded) ? Long.toString((long) rounded) : Double.toString(rounded);
    return number + SUFFIXES[suffix];
  }

  /**
   * Bytes of the memory quantity in {@code field}, such as 4Gi or 512M.
   *
   * @throws InvalidSpecException when it is not a quantity, negative, not a whole number of bytes
   *     (1m, 1500m) or too large for a byte count (100Ei), naming the field and its value
   */
  public static long bytes(String field, Quantity quantity) {
    String written = quantity == null ? "null" : quantity.toString();
    BigDecimal amount;
    try {
      amount = Quantity.getAmountInBytes(quantity);
    } catch (RuntimeException e) {
      throw new InvalidSpecException(
          field + " '" + written + "' is not a quantity; write it like 4Gi or 512Mi");
    }
    if (amount.signum() < 0) {
      throw new InvalidSpecException(
          field + " '" + written + "' is negative; write a byte size like 4Gi");
    }
    try {
      return amount.toBigIntegerExact().longValueExact();
    } catch (ArithmeticException e) {
      throw new InvalidSpecException(
          field
              + " '"
              + written
              + "' is not a whole number of bytes below 8Ei;"
              + " write a byte size like 4Gi");
    }
  }
}
