package io.kvpool.protocol;

import java.io.IOException;
import java.nio.ByteBuffer;

/** Server side of one accepted connection after a successful handshake. */
public final class Session {
  private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
  private final FrameChannel channel;
  private final Handshake peer;
  private final String remoteAddress;

  Session(FrameChannel channel, Handshake peer, String remoteAddress) {
    this.channel = channel;
    this.peer = peer;
    this.remoteAddress = remoteAddress;
  }

  public Handshake peer() {
    return peer;
  }

  public String remoteAddress() {
    return remoteAddress;
  }

  public FrameChannel channel() {
    return channel;
  }

  public void reply(Frame request, BodyWriter body) throws IOException {
    reply(request, body, (ByteBuffer[]) null);
  }

  public void reply(Frame request, BodyWriter body, ByteBuffer... payload) throws IOException {
    channel.write(request.header().opcode(), FrameHeader.FLAG_RESPONSE, request.header().requestId(),
        body == null ? EMPTY.duplicate() : body.toBuffer(), payload);
  }

  public void replyError(Frame request, ErrorCode code, String message) throws IOException {
    BodyWriter w = new BodyWriter();
    new ErrorReply(code, message).encode(w);
    channel.write(request.header().opcode(), FrameHeader.FLAG_RESPONSE | FrameHeader.FLAG_ERROR,
        request.header().requestId(), w.toBuffer());
  }
}
