package io.kvpool.protocol;

import java.util.List;

/**
 * Storage node -> client: per read of a READ_BATCH, its status (OK, or why it was refused: the
 * codes of READ) and the bytes it sends; the payload is the OK reads' bytes one after the other, in
 * request order.
 */
public record ReadBatchReply(List<Result> results) {
  /** One read's outcome: {@code length} payload bytes when OK, else 0 and the reason. */
  public record Result(ErrorCode status, int length, String message) {
    static final int MIN_BYTES = 2 + 4 + 2;

    public static Result ok(int length) {
      return new Result(ErrorCode.OK, length, "");
    }
  }

  public void encode(BodyWriter w) {
    w.list(results, (b, r) -> b.u16(r.status().code()).i32(r.length()).string(r.message()));
  }

  public static ReadBatchReply decode(BodyReader r) throws ProtocolException {
    ReadBatchReply reply =
        new ReadBatchReply(
            r.list(
                ProtocolLimits.MAX_BATCH,
                Result.MIN_BYTES,
                x -> {
                  ErrorCode status = ErrorCode.fromCode(x.u16());
                  int length = x.index(ProtocolLimits.MAX_VALUE_BYTES, "payload length");
                  String message = x.text();
                  if (status != ErrorCode.OK && length != 0) {
                    throw new ProtocolException(
                        "a refused read announces " + length + " payload bytes");
                  }
                  return new Result(status, length, message);
                }));
    r.finish();
    return reply;
  }

  /** Payload bytes that follow the body. */
  public long payloadBytes() {
    long n = 0;
    for (Result r : results) {
      n += r.length();
    }
    return n;
  }
}
