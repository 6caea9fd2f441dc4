package io.kvpool.master;

import io.kvpool.protocol.ErrorCode;

/**
 * A request the master refuses as a whole; the handler answers it with this error code and message.
 */
final class RefusedException extends RuntimeException {
  private final ErrorCode code;

  RefusedException(ErrorCode code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  ErrorCode code() {
    return code;
  }
}
