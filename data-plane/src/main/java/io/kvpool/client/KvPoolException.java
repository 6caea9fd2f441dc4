package io.kvpool.client;

/** Base of every failure the kvpool client reports. Unchecked: callers handle the cases they care about. */
public class KvPoolException extends RuntimeException {
  public KvPoolException(String message) {
    super(message);
  }

  public KvPoolException(String message, Throwable cause) {
    super(message, cause);
  }
}
