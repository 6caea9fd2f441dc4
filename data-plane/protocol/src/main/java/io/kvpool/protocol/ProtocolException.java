package io.kvpool.protocol;

import java.io.IOException;

/** A peer sent bytes that are not a valid frame; the connection that carried them is closed. */
public class ProtocolException extends IOException {
  public ProtocolException(String message) {
    super(message);
  }
}
