package io.kvpool.protocol;

/**
 * What a server says of itself in handshakes and stats: serving, a standby master, or a leader
 * recovering.
 */
public enum ServerState {
  SERVING(0),
  STANDBY(1),
  RECOVERING(2);

  private final int code;

  ServerState(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static ServerState fromCode(int code) throws ProtocolException {
    for (ServerState s : values()) {
      if (s.code == code) {
        return s;
      }
    }
    throw new ProtocolException("unknown server state " + code);
  }
}
