package io.kvpool.client;

/** The pool has no room for the value with the requested replica count, even after eviction. */
public class NoSpaceException extends KvPoolException {
  public NoSpaceException(String message) {
    super(message);
  }

  public NoSpaceException(String message, Throwable cause) {
    super(message, cause);
  }
}
