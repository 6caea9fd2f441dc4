package io.kvpool.nativemem;

/** The native library could not do what was asked, e.g. mmap refused to map a segment. */
public class NativeMemoryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public NativeMemoryException(String message) {
    super(message);
  }
}
