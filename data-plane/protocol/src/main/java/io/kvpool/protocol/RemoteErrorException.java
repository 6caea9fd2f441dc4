package io.kvpool.protocol;

import java.io.IOException;

/** The peer answered a request with an error frame. */
public class RemoteErrorException extends IOException {
  private final ErrorCode code;

  public RemoteErrorException(ErrorCode code, String message) {
    super(code + ": " + message);
    this.code = code;
  }

  public ErrorCode code() {
    return code;
  }

  /** The peer's message without the code prefix. */
  public String remoteMessage() {
    String m = getMessage();
    return m.substring(code.name().length() + 2);
  }
}
