package io.kvpool.client;

/** The caller's buffer cannot hold the value; the message says how large it must be. */
public class BufferTooSmallException extends KvPoolException {
  public BufferTooSmallException(String message) {
    super(message);
  }

  public BufferTooSmallException(String message, Throwable cause) {
    super(message, cause);
  }
}
