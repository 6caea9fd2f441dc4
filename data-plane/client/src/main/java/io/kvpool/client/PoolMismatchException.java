package io.kvpool.client;

import io.kvpool.protocol.ErrorCode;

/**
 * The server belongs to another pool than the client's configured pool id (the handshake's
 * POOL_MISMATCH); the message names both pools. Not retried: point the client at its own pool's
 * masters, or correct its pool id.
 */
public class PoolMismatchException extends KvPoolException {
  public PoolMismatchException(String message, Throwable cause) {
    super(message, cause, ErrorCode.POOL_MISMATCH);
  }
}
