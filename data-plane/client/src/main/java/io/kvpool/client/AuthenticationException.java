package io.kvpool.client;

/**
 * The pool refused this client's credentials (no key, a wrong or retired key, a role the key does
 * not admit), or a server could not prove it holds the pool's key. Not retried: the configuration
 * must change.
 */
public class AuthenticationException extends KvPoolException {
  public AuthenticationException(String message, Throwable cause) {
    super(message, cause);
  }
}
