package io.kvpool.protocol;

import java.io.Closeable;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * Blocking frame I/O on one socket. Value payloads move between the socket and caller-supplied (direct) buffers
 * without passing through the Java heap.
 *
 * <p>Reads go through a small direct read-ahead buffer so that a header and its control body usually arrive with
 * one system call; payload bytes that came along are moved from it (native to native) before the rest is read
 * straight into the caller's buffer. Writes put header and small body into one direct buffer and send it with the
 * payload in one gathering write.
 */
public final class FrameChannel implements Closeable {
  private static final int SOCKET_BUFFER_BYTES = 4 << 20;
  /** Large enough for the header and body of every per-value request and reply. */
  private static final int STAGING_BYTES = 8 << 10;

  private final SocketChannel channel;
  private final ByteBuffer inbound = ByteBuffer.allocateDirect(STAGING_BYTES).limit(0); // unread: position..limit
  private final ByteBuffer outbound = ByteBuffer.allocateDirect(STAGING_BYTES);
  private final ByteBuffer[] headerAndBody = new ByteBuffer[2];
  private final ByteBuffer[] stagedAndPayload = new ByteBuffer[2];
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
    if (!fill(ProtocolLimits.HEADER_BYTES)) {
      if (!inbound.hasRemaining()) {
        return null;
      }
      throw new ProtocolException("connection closed inside a frame header after " + inbound.remaining() + " bytes");
    }
    FrameHeader h = FrameHeader.decode(inbound);
    ByteBuffer body = ByteBuffer.allocate(h.bodyLength());
    if (h.bodyLength() <= STAGING_BYTES) {
      if (!fill(h.bodyLength())) {
        throw new ProtocolException("connection closed inside a frame body after " + inbound.remaining() + " of "
            + h.bodyLength() + " bytes");
      }
      body.put(body.position(), inbound, inbound.position(), h.bodyLength());
      inbound.position(inbound.position() + h.bodyLength());
    } else {
      drainInto(body);
      while (body.hasRemaining()) {
        if (channel.read(body) < 0) {
          throw new ProtocolException("connection closed inside a frame body after " + body.position() + " of "
              + h.bodyLength() + " bytes");
        }
      }
      body.flip();
    }
    return new Frame(h, body);
  }

  /** Makes at least {@code n} (at most the staging size) unread bytes available; false on end of stream. */
  private boolean fill(int n) throws IOException {
    if (inbound.remaining() >= n) {
      return true;
    }
    inbound.compact();
    try {
      while (inbound.position() < n) {
        if (channel.read(inbound) < 0) {
          return false;
        }
      }
    } finally {
      inbound.flip();
    }
    return true;
  }

  /** Moves already received bytes (up to dst's remaining room) into dst. */
  private void drainInto(ByteBuffer dst) {
    int n = Math.min(inbound.remaining(), dst.remaining());
    if (n > 0) {
      dst.put(dst.position(), inbound, inbound.position(), n);
      dst.position(dst.position() + n);
      inbound.position(inbound.position() + n);
    }
  }

  /** Fills {@code dst} from position to limit with payload bytes. */
  public void readPayload(ByteBuffer dst) throws IOException {
    drainInto(dst);
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
    outbound.clear();
    new FrameHeader(protocolMajor, protocolMinor, opcode, flags, requestId, body.remaining()).encode(outbound);
    int parts = payload == null ? 0 : payload.length;
    boolean staged = body.remaining() <= outbound.remaining();
    int first = staged ? 1 : 2;
    if (staged) {
      outbound.put(body.duplicate());
    }
    outbound.flip();
    if (staged && parts == 0) {
      while (outbound.hasRemaining()) {
        channel.write(outbound);
      }
      return;
    }
    ByteBuffer[] gather = staged && parts == 1 ? stagedAndPayload
        : !staged && parts == 0 ? headerAndBody : new ByteBuffer[first + parts];
    gather[0] = outbound;
    long left = outbound.remaining();
    if (!staged) {
      gather[1] = body;
      left += body.remaining();
    }
    for (int i = 0; i < parts; i++) {
      gather[first + i] = payload[i];
      left += payload[i].remaining();
    }
    while (left > 0) {
      left -= channel.write(gather);
    }
    if (gather == headerAndBody || gather == stagedAndPayload) {
      gather[1] = null; // do not keep the caller's buffer reachable
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
