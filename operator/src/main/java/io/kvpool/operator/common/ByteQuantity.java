package io.kvpool.operator.common;

import io.fabric8.kubernetes.api.model.Quantity;

/** Byte counts in the canonical binary-suffix form the API server itself writes ("4Gi", "4608Mi"). */
public final class ByteQuantity {
  private static final String[] SUFFIXES = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};

  private ByteQuantity() {
  }

  /** Exact form: the largest binary suffix that divides the value, so the server does not rewrite it. */
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
    String number = rounded == Math.rint(rounded) ? Long.toString((long) rounded) : Double.toString(rounded);
    return number + SUFFIXES[suffix];
  }

  /** Bytes of a memory quantity such as 4Gi or 512M. */
  public static long bytes(Quantity quantity) {
    return Quantity.getAmountInBytes(quantity).longValueExact();
  }
}
