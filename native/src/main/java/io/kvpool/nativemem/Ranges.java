package io.kvpool.nativemem;

/** Bounds checks done in Java before any address reaches native code. */
final class Ranges {
  private Ranges() {}

  /**
   * Checks that [offset, offset + length) lies within [0, capacity), without overflowing.
   *
   * @throws IndexOutOfBoundsException naming the range and the capacity of what
   */
  static void check(long offset, long length, long capacity, String what) {
    if (offset < 0 || length < 0 || offset > capacity || length > capacity - offset) {
      throw new IndexOutOfBoundsException(
          "range [offset="
              + offset
              + ", length="
              + length
              + ") is outside "
              + what
              + " of "
              + capacity
              + " bytes; offset and length must be >= 0 and offset + length <= "
              + capacity);
    }
  }
}
