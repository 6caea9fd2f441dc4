package io.kvpool.protocol;

import java.io.IOException;

/** A connection was refused during the handshake: version skew or a different pool. */
public class HandshakeException extends IOException {
  private final ErrorCode code;

  public HandshakeException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }
}
