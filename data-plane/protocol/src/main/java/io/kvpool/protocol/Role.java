package io.kvpool.protocol;

/** What kind of process sits at each end of a connection. */
public enum Role {
  CLIENT(1),
  STORAGE(2),
  MASTER(3);

  private final int code;

  Role(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static Role fromCode(int code) throws ProtocolException {
    for (Role r : values()) {
      if (r.code == code) {
        return r;
      }
    }
    throw new ProtocolException("unknown role code " + code);
  }
}
