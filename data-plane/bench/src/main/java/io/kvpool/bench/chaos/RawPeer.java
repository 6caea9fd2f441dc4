package io.kvpool.bench.chaos;

import io.kvpool.common.HostPort;
import io.kvpool.common.VersionInfo;
import io.kvpool.protocol.BodyWriter;
import io.kvpool.protocol.FrameHeader;
import io.kvpool.protocol.Handshake;
import io.kvpool.protocol.HandshakeRequest;
import io.kvpool.protocol.ProtocolLimits;
import io.kvpool.protocol.Role;
import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/**
 * A hand-driven connection to a data-plane server that writes PROTOCOL.md frames, or parts of them,
 * and ends however the soak wants: reset, close, or silence. Writes are non-blocking with a
 * deadline, so a server that stops reading can never hang the soak. Not thread-safe.
 */
final class RawPeer implements AutoCloseable {
  private final SocketChannel channel;
  private long requestId = 1;

  private RawPeer(SocketChannel channel) {
    this.channel = channel;
  }

  static RawPeer connect(HostPort endpoint) throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      ch.socket().connect(endpoint.toSocketAddress(), 3000);
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.configureBlocking(false);
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    return new RawPeer(ch);
  }

  /** A client handshake frame (no key: the soak's pool runs without authentication). */
  static ByteBuffer handshakeFrame(String clientId) {
    BodyWriter w = new BodyWriter();
    new HandshakeRequest(
            new Handshake(VersionInfo.CURRENT, Role.CLIENT, "", clientId),
            0,
            new byte[0],
            new byte[HandshakeRequest.NONCE_BYTES])
        .encode(w);
    ByteBuffer body = w.toBuffer();
    ByteBuffer frame = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES + body.remaining());
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            io.kvpool.protocol.Opcode.HANDSHAKE.code(),
            0,
            0,
            body.remaining())
        .encode(frame);
    return frame.put(body).flip();
  }

  /** The header of a request frame declaring {@code bodyLength} body bytes. */
  ByteBuffer header(io.kvpool.protocol.Opcode opcode, int bodyLength) {
    ByteBuffer header = ByteBuffer.allocate(ProtocolLimits.HEADER_BYTES);
    new FrameHeader(
            VersionInfo.PROTOCOL_MAJOR,
            VersionInfo.PROTOCOL_MINOR,
            opcode.code(),
            0,
            requestId++,
            bodyLength)
        .encode(header);
    return header.flip();
  }

  /** Writes all of {@code bytes} unless the deadline passes first; returns the bytes written. */
  long write(ByteBuffer bytes, long deadlineNanos) throws IOException {
    long written = 0;
    while (bytes.hasRemaining()) {
      int n = channel.write(bytes);
      written += n;
      if (n == 0) {
        if (System.nanoTime() - deadlineNanos > 0) {
          return written;
        }
        Pause.millis(
            1); // the server is not reading (its budget is taken): wait for room in the socket
      }
    }
    return written;
  }

  /**
   * Writes {@code count} zero bytes (from a shared buffer of zeros) unless the deadline passes;
   * returns the count.
   */
  long writeZeros(long count, ByteBuffer zeros, long deadlineNanos) throws IOException {
    long written = 0;
    while (written < count && System.nanoTime() - deadlineNanos < 0) {
      ByteBuffer chunk = zeros.duplicate().clear();
      chunk.limit((int) Math.min(chunk.capacity(), count - written));
      long n = write(chunk, deadlineNanos);
      written += n;
      if (n == 0) {
        break;
      }
    }
    return written;
  }

  /** Whether the server closed the connection (EOF or reset); reads and drops whatever it sent. */
  boolean closedByServer() {
    ByteBuffer sink = ByteBuffer.allocate(64 << 10);
    try {
      while (true) {
        int n = channel.read(sink.clear());
        if (n < 0) {
          return true;
        }
        if (n == 0) {
          return false;
        }
      }
    } catch (IOException reset) {
      return true;
    }
  }

  /** Ends with a TCP reset (SO_LINGER 0), as a crashed peer's kernel or a middlebox does. */
  void reset() {
    try {
      channel.setOption(StandardSocketOptions.SO_LINGER, 0);
    } catch (IOException e) {
      // already closed by the server: nothing to reset
    }
    close();
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      // closing a socket the server may have reset
    }
  }
}
