package io.kvpool.client;

import io.kvpool.protocol.ErrorCode;

/**
 * Base of every failure the kvpool client reports. Unchecked: callers handle the cases they care
 * about. {@link #code()} is the protocol's error code when a server refused the request (see
 * PROTOCOL.md), else null.
 */
public class KvPoolException extends RuntimeException {
  private final ErrorCode code;

  public KvPoolException(String message) {
    this(message, null, null);
  }

  public KvPoolException(String message, Throwable cause) {
    this(message, cause, null);
  }

  public KvPoolException(String message, Throwable cause, ErrorCode code) {
    super(message, cause);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }
}
