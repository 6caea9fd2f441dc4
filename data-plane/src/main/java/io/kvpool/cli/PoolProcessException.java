package io.kvpool.cli;

/** A data-plane process of a local pool could not be started, did not become ready, or died. */
public final class PoolProcessException extends RuntimeException {

  public PoolProcessException(String message) {
    super(message);
  }

  public PoolProcessException(String message, Throwable cause) {
    super(message, cause);
  }
}
