package io.kvpool.operator.admin;

/** A master admin call failed; the message says which address and why, for the pool's status. */
public class PoolAdminException extends Exception {
  public PoolAdminException(String message) {
    super(message);
  }

  public PoolAdminException(String message, Throwable cause) {
    super(message, cause);
  }
}
