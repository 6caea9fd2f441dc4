package io.kvpool.client;

/** Client and server speak incompatible protocol versions; the message names both. */
public class VersionMismatchException extends KvPoolException {
  public VersionMismatchException(String message) {
    super(message);
  }

  public VersionMismatchException(String message, Throwable cause) {
    super(message, cause);
  }
}
