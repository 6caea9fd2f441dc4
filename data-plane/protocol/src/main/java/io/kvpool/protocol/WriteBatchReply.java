package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> client: per write of a WRITE_BATCH, its status (the codes of WRITE), a message
 * when refused, the receipt when that write completed a verified replica (else empty), and from
 * protocol 2.2 whether the node committed that replica at the master itself ({@link WriteReply}).
 */
public record WriteBatchReply(List<Result> results) {
  /** One write's outcome. */
  public record Result(ErrorCode status, String message, byte[] receipt, boolean committed) {
    static final int MIN_BYTES = 2 + 2 + 2;
  }

  /**
   * Encodes for a peer that agreed on protocol minor {@code minor} (the commit flag from 2.2 on).
   */
  public void encode(BodyWriter w, int minor) {
    w.list(
        results,
        (b, r) -> {
          b.u16(r.status().code()).string(r.message()).bytes(r.receipt());
          if (minor >= WriteReply.COMMIT_MINOR) {
            b.bool(r.committed());
          }
        });
  }

  public static WriteBatchReply decode(BodyReader r, int minor) throws ProtocolException {
    WriteBatchReply reply =
        new WriteBatchReply(
            r.list(
                ProtocolLimits.MAX_BATCH,
                Result.MIN_BYTES,
                x ->
                    new Result(
                        ErrorCode.fromCode(x.u16()),
                        x.text(),
                        x.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "receipt"),
                        minor >= WriteReply.COMMIT_MINOR && x.bool())));
    r.finish();
    return reply;
  }
}
