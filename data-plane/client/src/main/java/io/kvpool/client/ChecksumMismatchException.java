package io.kvpool.client;

/** Bytes read from every replica failed CRC32C verification. */
public class ChecksumMismatchException extends KvPoolException {
  public ChecksumMismatchException(String message) {
    super(message);
  }

  public ChecksumMismatchException(String message, Throwable cause) {
    super(message, cause);
  }
}
