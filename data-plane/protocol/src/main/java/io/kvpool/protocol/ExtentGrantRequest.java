package io.kvpool.protocol;

import java.util.List;

/**
 * Client -> master (protocol 2.4): an extent of {@code length} bytes on one storage node, none of
 * the avoided ones.
 */
public record ExtentGrantRequest(int length, List<String> avoidNodes) {
  public static final int MINOR = 4;

  /** The smallest and largest extent a master grants. */
  public static final int MIN_LENGTH = 64 << 10;

  public static final int MAX_LENGTH = 64 << 20;

  public void encode(BodyWriter w) {
    w.i32(length).list(avoidNodes, BodyWriter::string);
  }

  public static ExtentGrantRequest decode(BodyReader r) throws ProtocolException {
    ExtentGrantRequest req =
        new ExtentGrantRequest(r.i32(), r.list(16, 2, x -> x.string(256, "avoided node id")));
    r.finish();
    return req;
  }
}
