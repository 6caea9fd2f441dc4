package io.kvpool.protocol;

import java.util.List;

/**
 * A batch of keys: body of GetReplicas, Exists and Remove. Keys are decoded leniently (up to 65535
 * bytes) so that a key over the limit gets its own LIMIT_EXCEEDED status; see {@link Keys#problem}.
 */
public record KeyList(List<String> keys) {
  public void encode(BodyWriter w) {
    w.list(keys, BodyWriter::string);
  }

  public static KeyList decode(BodyReader r) throws ProtocolException {
    KeyList k = new KeyList(r.list(ProtocolLimits.MAX_BATCH, 2, BodyReader::anyKey));
    r.finish();
    return k;
  }
}
