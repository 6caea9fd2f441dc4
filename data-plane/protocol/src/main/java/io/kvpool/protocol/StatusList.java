package io.kvpool.protocol;

import java.util.List;

/** One status per key of a {@link KeyList}, in order. */
public record StatusList(List<ErrorCode> statuses) {
  public void encode(BodyWriter w) {
    w.list(statuses, (b, s) -> b.u16(s.code()));
  }

  public static StatusList decode(BodyReader r) throws ProtocolException {
    StatusList s =
        new StatusList(r.list(ProtocolLimits.MAX_BATCH, 2, x -> ErrorCode.fromCode(x.u16())));
    r.finish();
    return s;
  }
}
