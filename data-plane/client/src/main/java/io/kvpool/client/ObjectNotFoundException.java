package io.kvpool.client;

/** The key is not stored (never put, removed, evicted, or lost with its nodes). */
public class ObjectNotFoundException extends KvPoolException {
  public ObjectNotFoundException(String message) {
    super(message);
  }

  public ObjectNotFoundException(String message, Throwable cause) {
    super(message, cause);
  }
}
