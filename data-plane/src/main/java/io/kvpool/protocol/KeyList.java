package io.kvpool.protocol;

import java.util.List;

/** A batch of keys: body of PutEnd, PutRevoke, GetReplicas, Exists and Remove. */
public record KeyList(List<String> keys) {
  public void encode(BodyWriter w) {
    w.list(keys, BodyWriter::string);
  }

  public static KeyList decode(BodyReader r) throws ProtocolException {
    KeyList k = new KeyList(r.list(ProtocolLimits.MAX_BATCH, 3, BodyReader::key));
    r.finish();
    return k;
  }
}
