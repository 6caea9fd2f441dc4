package io.kvpool.protocol;

import java.io.Closeable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Blocking frame I/O on one socket. Value payloads move between the socket and caller-supplied (direct) buffers
 * without passing through the Java heap.
 */
public final class FrameChannel implements Closeable {
  private static final int SOCKET_BUFFER_BYTES = 4 << 20;

  private final SocketChannel channel;
  private final ByteBuffer header = ByteBuffer.allocateDirect(ProtocolLimits.HEADER_BYTES);
  private final ByteBuffer[] headerAndBody = new ByteBuffer[2];
  private final int protocolMajor;
  private final int protocolMinor;

  public FrameChannel(SocketChannel channel, int protocolMajor, int protocolMinor) throws IOException {
    this.channel = channel;
    this.protocolMajor = protocolMajor;
    this.protocolMinor = protocolMinor;
    channel.configureBlocking(true);
    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
    channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_BYTES);
    channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_BYTES);
  }

  public SocketChannel channel() {
    return channel;
  }

  /** The next frame, or null when the peer closed the connection cleanly between frames. */
  public Frame read() throws IOException {
    header.clear();
    while (header.hasRemaining()) {
      if (channel.read(header) < 0) {
        if (header.position() == 0) {
          return null;
        }
        throw new ProtocolException("connection closed inside a frame header after " + header.position() + " bytes");
      }
    }
    header.flip();
    FrameHeader h = FrameHeader.decode(header);
    ByteBuffer body = ByteBuffer.allocate(h.bodyLength());
    while (body.hasRemaining()) {
      if (channel.read(body) < 0) {
        throw new ProtocolException("connection closed inside a frame body after " + body.position() + " of "
            + h.bodyLength() + " bytes");
      }
    }
    body.flip();
    return new Frame(h, body);
  }

  /** Fills {@code dst} from position to limit with payload bytes. */
  public void readPayload(ByteBuffer dst) throws IOException {
    while (dst.hasRemaining()) {
      if (channel.read(dst) < 0) {
        throw new ProtocolException("connection closed inside a payload with " + dst.remaining() + " bytes missing");
      }
    }
  }

  /** Reads and discards {@code length} payload bytes so the stream stays in step after a refused write. */
  public void skipPayload(long length) throws IOException {
    ByteBuffer scratch = ByteBuffer.allocateDirect((int) Math.min(length, 64 << 10));
    long left = length;
    while (left > 0) {
      scratch.clear();
      scratch.limit((int) Math.min(left, scratch.capacity()));
      readPayload(scratch);
      left -= scratch.limit();
    }
  }

  /** Writes header, body and payload buffers (each position..limit) as one gathering write. */
  public void write(int opcode, int flags, long requestId, ByteBuffer body, ByteBuffer... payload) throws IOException {
    header.clear();
    new FrameHeader(protocolMajor, protocolMinor, opcode, flags, requestId, body.remaining()).encode(header);
    header.flip();
    int parts = payload == null ? 0 : payload.length;
    ByteBuffer[] gather = parts == 0 ? headerAndBody : new ByteBuffer[2 + parts];
    gather[0] = header;
    gather[1] = body;
    long left = header.remaining() + (long) body.remaining();
    for (int i = 0; i < parts; i++) {
      gather[2 + i] = payload[i];
      left += payload[i].remaining();
    }
    while (left > 0) {
      left -= channel.write(gather);
    }
    gather[1] = null;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
