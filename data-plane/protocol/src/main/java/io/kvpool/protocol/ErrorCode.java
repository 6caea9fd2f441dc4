package io.kvpool.protocol;

/** Status of a request or of one entry of a batch. */
public enum ErrorCode {
  OK(0),
  MALFORMED_REQUEST(1),
  UNKNOWN_OPCODE(2),
  VERSION_MISMATCH(3),
  POOL_MISMATCH(4),
  NOT_FOUND(5),
  ALREADY_EXISTS(6),
  NO_SPACE(7),
  INVALID_STATE(8),
  OBJECT_LEASED(9),
  OUT_OF_BOUNDS(10),
  GRANT_REJECTED(11),
  CHECKSUM_MISMATCH(12),
  UNKNOWN_NODE(13),
  NODE_UNAVAILABLE(14),
  LIMIT_EXCEEDED(15),
  NOT_LEADER(16),
  INTERNAL(17),
  PUT_IN_PROGRESS(18),
  RECOVERING(19),
  STALE_VIEW(20),
  AUTH_REQUIRED(21),
  AUTH_FAILED(22),
  NODE_ID_IN_USE(23),
  BUSY(24),
  TOKEN_REJECTED(25),
  NOT_ENOUGH_NODES(26),
  WRITE_INCOMPLETE(27);

  private final int code;

  ErrorCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  public static ErrorCode fromCode(int code) throws ProtocolException {
    ErrorCode[] all = values();
    if (code < 0 || code >= all.length || all[code].code != code) {
      throw new ProtocolException("unknown error code " + code);
    }
    return all[code];
  }
}
