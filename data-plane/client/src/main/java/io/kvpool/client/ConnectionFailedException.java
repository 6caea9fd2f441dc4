package io.kvpool.client;

/** A master or storage node could not be reached or did not answer in time. */
public class ConnectionFailedException extends KvPoolException {
  public ConnectionFailedException(String message) {
    super(message);
  }

  public ConnectionFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
