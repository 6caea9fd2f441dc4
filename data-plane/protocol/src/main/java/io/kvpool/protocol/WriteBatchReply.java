package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> client: per write of a WRITE_BATCH, its status (the codes of WRITE), a message when refused, and
 * the receipt when that write completed a verified replica (else empty).
 */
public record WriteBatchReply(List<Result> results) {
  /** One write's outcome. */
  public record Result(ErrorCode status, String message, byte[] receipt) {
    static final int MIN_BYTES = 2 + 2 + 2;
  }

  public void encode(BodyWriter w) {
    w.list(results, (b, r) -> b.u16(r.status().code()).string(r.message()).bytes(r.receipt()));
  }

  public static WriteBatchReply decode(BodyReader r) throws ProtocolException {
    WriteBatchReply reply = new WriteBatchReply(r.list(ProtocolLimits.MAX_BATCH, Result.MIN_BYTES,
        x -> new Result(ErrorCode.fromCode(x.u16()), x.text(), x.bytes(ProtocolLimits.MAX_TOKEN_BYTES, "receipt"))));
    r.finish();
    return reply;
  }
}
